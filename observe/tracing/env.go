package tracing

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/agentgw/agentgw/observe"
)

// DefaultServiceName is the service.name of the gateway's spans when
// neither OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES names one.
const DefaultServiceName = "agentgw"

// Exporters named by OTEL_TRACES_EXPORTER.
const (
	ExporterOTLP    = "otlp"
	ExporterConsole = "console"
	ExporterNone    = "none"
)

// Protocols named by OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL.
const (
	ProtocolHTTP = "http/protobuf"
	ProtocolGRPC = "grpc"
)

// FromEnv builds the gateway's tracer from the standard OTEL_* variables
// read with getenv. Tracing is off, and FromEnv returns a nil Observer
// (add none: a request then costs nothing), unless OTEL_TRACES_EXPORTER
// names otlp or console, or it is unset and an OTLP endpoint is
// (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
// OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none turn it off.
//
// getenv gives the exporters, the protocol (http/protobuf, the default,
// or grpc), the endpoint, the sampler (OTEL_TRACES_SAMPLER and its _ARG),
// the resource (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) and the
// OTLP/HTTP exporter's headers, timeout, compression and certificates
// (OTEL_EXPORTER_OTLP_(TRACES_)HEADERS, _TIMEOUT, _COMPRESSION,
// _CERTIFICATE, _CLIENT_CERTIFICATE, _CLIENT_KEY); the OpenTelemetry SDK
// reads the rest from the process's environment itself (OTEL_BSP_*, span
// limits, and the OTLP/gRPC exporter's own variables). The console
// exporter writes to stdout.
//
// OTLP/gRPC is in the binary only when it is built with the otlpgrpc
// tag (go build -tags otlpgrpc): without it, asking for it is an error.
//
// A failed export is logged on log (nil: not logged), not handed to the
// OpenTelemetry global error handler. shutdown flushes the spans not yet
// exported and stops the exporters; it is never nil.
func FromEnv(ctx context.Context, getenv func(string) string, version string, log *slog.Logger) (o observe.Observer, shutdown func(context.Context) error, err error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	nop := func(context.Context) error { return nil }
	names, err := exporterNames(getenv)
	if err != nil || len(names) == 0 {
		return nil, nop, err
	}
	sampler, err := samplerFromEnv(getenv)
	if err != nil {
		return nil, nop, err
	}
	res, err := resourceFromEnv(ctx, getenv, version)
	if err != nil {
		return nil, nop, err
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithSampler(sampler), sdktrace.WithResource(res)}
	var made []sdktrace.SpanExporter
	for _, name := range names {
		exp, where, err := newExporter(ctx, name, getenv, os.Stdout)
		if err != nil {
			for _, e := range made {
				_ = e.Shutdown(ctx)
			}
			return nil, nop, err
		}
		made = append(made, exp)
		log.Info("tracing: exporting spans", "exporter", name, "to", where, "sampler", sampler.Description())
		opts = append(opts, sdktrace.WithBatcher(loggingExporter{exp, name, log}))
	}
	tp := sdktrace.NewTracerProvider(opts...)
	return New(tp, propagation.TraceContext{}, version), tp.Shutdown, nil
}

// exporterNames returns the exporters tracing is on with, none when off.
func exporterNames(getenv func(string) string) ([]string, error) {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return nil, nil
	}
	list := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER"))
	if list == "" {
		if getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" && getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" {
			return nil, nil
		}
		return []string{ExporterOTLP}, nil
	}
	var names []string
	for name := range strings.SplitSeq(list, ",") {
		switch name = strings.ToLower(strings.TrimSpace(name)); name {
		case ExporterNone:
			return nil, nil
		case ExporterOTLP, ExporterConsole:
			names = append(names, name)
		default:
			return nil, fmt.Errorf("tracing: OTEL_TRACES_EXPORTER: unsupported exporter %q (otlp, console or none)", name)
		}
	}
	return names, nil
}

// newExporter builds the exporter name names, console writing to w, and
// says where it sends spans.
func newExporter(ctx context.Context, name string, getenv func(string) string, w io.Writer) (exp sdktrace.SpanExporter, where string, err error) {
	if name == ExporterConsole {
		exp, err := stdouttrace.New(stdouttrace.WithWriter(w))
		if err != nil {
			return nil, "", fmt.Errorf("tracing: the console exporter: %w", err)
		}
		return exp, "stdout", nil
	}
	proto := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"))
	if proto == "" {
		proto = strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_PROTOCOL"))
	}
	endpoint, signal := getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), true
	if endpoint == "" {
		endpoint, signal = getenv("OTEL_EXPORTER_OTLP_ENDPOINT"), false
	}
	switch proto {
	case "", ProtocolHTTP:
		var u *url.URL
		where := "the default OTLP/HTTP endpoint"
		if endpoint != "" {
			var err error
			if u, err = httpEndpoint(endpoint, signal); err != nil {
				return nil, "", err
			}
			where = "OTLP/HTTP " + u.Redacted()
		}
		exp, err := newHTTPExporter(ctx, u, getenv)
		if err != nil {
			return nil, "", err
		}
		return exp, where, nil
	case ProtocolGRPC:
		return newGRPCExporter(ctx, endpoint)
	}
	return nil, "", fmt.Errorf("tracing: OTEL_EXPORTER_OTLP_PROTOCOL: unsupported protocol %q (http/protobuf or grpc)", proto)
}

// httpEndpoint is the URL spans are posted to: a signal's endpoint as it
// is, the base endpoint with v1/traces appended to its path.
func httpEndpoint(endpoint string, signal bool) (*url.URL, error) {
	u, err := parseEndpoint(endpoint)
	if err != nil {
		return nil, err
	}
	if !signal {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/traces"
		u.RawPath = ""
	}
	return u, nil
}

// parseEndpoint parses an OTLP endpoint, an http or https URL.
func parseEndpoint(endpoint string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(endpoint))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("tracing: the OTLP endpoint %q is not an http or https URL", endpoint)
	}
	return u, nil
}

// samplerFromEnv reads OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG;
// the default is parentbased_always_on.
func samplerFromEnv(getenv func(string) string) (sdktrace.Sampler, error) {
	name := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER")))
	arg := strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER_ARG"))
	ratio := func() (float64, error) {
		if arg == "" {
			return 1, nil
		}
		r, err := strconv.ParseFloat(arg, 64)
		if err != nil || r < 0 || r > 1 {
			return 0, fmt.Errorf("tracing: OTEL_TRACES_SAMPLER_ARG %q is not a ratio from 0 to 1", arg)
		}
		return r, nil
	}
	switch name {
	case "", "parentbased_always_on":
		return sdktrace.ParentBased(sdktrace.AlwaysSample()), nil
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample()), nil
	case "always_on":
		return sdktrace.AlwaysSample(), nil
	case "always_off":
		return sdktrace.NeverSample(), nil
	case "traceidratio", "parentbased_traceidratio":
		r, err := ratio()
		if err != nil {
			return nil, err
		}
		if name == "traceidratio" {
			return sdktrace.TraceIDRatioBased(r), nil
		}
		return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(r)), nil
	}
	return nil, fmt.Errorf("tracing: OTEL_TRACES_SAMPLER: unsupported sampler %q", name)
}

// resourceFromEnv describes the gateway: service.name (OTEL_SERVICE_NAME,
// else OTEL_RESOURCE_ATTRIBUTES's, else agentgw), service.version, the
// other OTEL_RESOURCE_ATTRIBUTES and the SDK's own attributes.
func resourceFromEnv(ctx context.Context, getenv func(string) string, version string) (*resource.Resource, error) {
	attrs, err := parseResourceAttributes(getenv("OTEL_RESOURCE_ATTRIBUTES"))
	if err != nil {
		return nil, err
	}
	name := strings.TrimSpace(getenv("OTEL_SERVICE_NAME"))
	if name == "" {
		name = DefaultServiceName
		for _, kv := range attrs {
			if kv.Key == semconv.ServiceNameKey {
				name = kv.Value.AsString()
			}
		}
	}
	attrs = append(attrs, semconv.ServiceName(name))
	if version != "" {
		attrs = append(attrs, semconv.ServiceVersion(version))
	}
	res, err := resource.New(ctx, resource.WithSchemaURL(semconv.SchemaURL), resource.WithTelemetrySDK(), resource.WithAttributes(attrs...))
	if err != nil {
		return nil, fmt.Errorf("tracing: the resource: %w", err)
	}
	return res, nil
}

// parseResourceAttributes parses OTEL_RESOURCE_ATTRIBUTES: key=value
// pairs separated by commas, values percent-encoded.
func parseResourceAttributes(s string) ([]attribute.KeyValue, error) {
	var attrs []attribute.KeyValue
	for pair := range strings.SplitSeq(s, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("tracing: OTEL_RESOURCE_ATTRIBUTES: %q is not key=value", pair)
		}
		val, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("tracing: OTEL_RESOURCE_ATTRIBUTES: the value of %q: %w", k, err)
		}
		attrs = append(attrs, attribute.String(k, val))
	}
	return attrs, nil
}

// loggingExporter logs the errors of exp's exports on log, and does not
// hand them to the batch processor, which would give them to the
// OpenTelemetry global error handler.
type loggingExporter struct {
	sdktrace.SpanExporter
	name string
	log  *slog.Logger
}

// ExportSpans implements sdktrace.SpanExporter.
func (e loggingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if err := e.SpanExporter.ExportSpans(ctx, spans); err != nil {
		e.log.Warn("tracing: spans not exported", "exporter", e.name, "spans", len(spans), "err", err)
	}
	return nil
}
