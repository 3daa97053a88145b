package tracing

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"

	"github.com/agentgw/agentgw/observe"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestExporterNames(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		want string
		err  string
	}{
		{name: "off by default", env: nil, want: ""},
		{name: "a base endpoint turns otlp on", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, want: "otlp"},
		{name: "a traces endpoint turns otlp on", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, want: "otlp"},
		{name: "otlp named", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, want: "otlp"},
		{name: "both", env: map[string]string{"OTEL_TRACES_EXPORTER": " OTLP , console"}, want: "otlp console"},
		{name: "none wins over an endpoint", env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, want: ""},
		{name: "sdk disabled", env: map[string]string{"OTEL_SDK_DISABLED": "TRUE", "OTEL_TRACES_EXPORTER": "otlp"}, want: ""},
		{name: "sdk not disabled", env: map[string]string{"OTEL_SDK_DISABLED": "false", "OTEL_TRACES_EXPORTER": "console"}, want: "console"},
		{name: "unknown exporter", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, err: `tracing: OTEL_TRACES_EXPORTER: unsupported exporter "zipkin" (otlp, console or none)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			names, err := exporterNames(envOf(c.env))
			if got := errString(err); got != c.err {
				t.Fatalf("error %q, want %q", got, c.err)
			}
			if got := strings.Join(names, " "); got != c.want {
				t.Errorf("exporters %q, want %q", got, c.want)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestFromEnvOff checks that with no OTEL_* variable there is no
// observer at all: the gateway adds none and a request costs nothing.
func TestFromEnvOff(t *testing.T) {
	for _, env := range []map[string]string{nil, {"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}} {
		o, shutdown, err := FromEnv(context.Background(), envOf(env), "v1", nil)
		if err != nil || o != nil || shutdown == nil {
			t.Fatalf("FromEnv(%v) = %v, %v, want no observer, a shutdown, no error", env, o, err)
		}
		if err := shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFromEnvErrors(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"}, `tracing: the OTLP endpoint "collector:4318" is not an http or https URL`},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, `tracing: OTEL_EXPORTER_OTLP_PROTOCOL: unsupported protocol "http/json" (http/protobuf or grpc)`},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_SAMPLER": "jaeger_remote"}, `tracing: OTEL_TRACES_SAMPLER: unsupported sampler "jaeger_remote"`},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "2"}, `tracing: OTEL_TRACES_SAMPLER_ARG "2" is not a ratio from 0 to 1`},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_RESOURCE_ATTRIBUTES": "team"}, `tracing: OTEL_RESOURCE_ATTRIBUTES: "team" is not key=value`},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "a=b,c"}, `tracing: OTEL_EXPORTER_OTLP_TRACES_HEADERS: "c" is not key=percent-encoded value`},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_HEADERS": "a=%zz"}, `tracing: OTEL_EXPORTER_OTLP_HEADERS: "a=%zz" is not key=percent-encoded value`},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_TIMEOUT": "10s"}, `tracing: OTEL_EXPORTER_OTLP_TIMEOUT "10s" is not a number of milliseconds`},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "zstd"}, `tracing: OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: unsupported compression "zstd" (gzip or none)`},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c:4318", "OTEL_EXPORTER_OTLP_CERTIFICATE": "testdata/none.pem"}, `tracing: OTEL_EXPORTER_OTLP_CERTIFICATE: open testdata/none.pem: no such file or directory`},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c:4318", "OTEL_EXPORTER_OTLP_CERTIFICATE": "env.go"}, `tracing: OTEL_EXPORTER_OTLP_CERTIFICATE: no PEM certificate in env.go`},
	} {
		_, shutdown, err := FromEnv(context.Background(), envOf(c.env), "v1", nil)
		if got := errString(err); got != c.want {
			t.Errorf("FromEnv(%v): error %q, want %q", c.env, got, c.want)
		}
		_ = shutdown(context.Background())
	}
}

func TestSamplerFromEnv(t *testing.T) {
	for _, c := range []struct{ sampler, arg, want string }{
		{"", "", "ParentBased{root:AlwaysOnSampler,remoteParentSampled:AlwaysOnSampler,remoteParentNotSampled:AlwaysOffSampler,localParentSampled:AlwaysOnSampler,localParentNotSampled:AlwaysOffSampler}"},
		{"always_off", "", "AlwaysOffSampler"},
		{"always_on", "", "AlwaysOnSampler"},
		{"traceidratio", "0.25", "TraceIDRatioBased{0.25}"},
		{"parentbased_traceidratio", "0.5", "ParentBased{root:TraceIDRatioBased{0.5},remoteParentSampled:AlwaysOnSampler,remoteParentNotSampled:AlwaysOffSampler,localParentSampled:AlwaysOnSampler,localParentNotSampled:AlwaysOffSampler}"},
		{"parentbased_always_off", "", "ParentBased{root:AlwaysOffSampler,remoteParentSampled:AlwaysOnSampler,remoteParentNotSampled:AlwaysOffSampler,localParentSampled:AlwaysOnSampler,localParentNotSampled:AlwaysOffSampler}"},
	} {
		s, err := samplerFromEnv(envOf(map[string]string{"OTEL_TRACES_SAMPLER": c.sampler, "OTEL_TRACES_SAMPLER_ARG": c.arg}))
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Description(); got != c.want {
			t.Errorf("%s %s: %s, want %s", c.sampler, c.arg, got, c.want)
		}
	}
}

func TestResourceFromEnv(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{nil, "service.name=agentgw service.version=v9"},
		{map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "service.name=gw-a,deployment.environment.name=prod%20eu"}, "deployment.environment.name=prod eu service.name=gw-a service.version=v9"},
		{map[string]string{"OTEL_SERVICE_NAME": "gw-b", "OTEL_RESOURCE_ATTRIBUTES": "service.name=gw-a"}, "service.name=gw-b service.version=v9"},
	} {
		res, err := resourceFromEnv(context.Background(), envOf(c.env), "v9")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, kv := range res.Attributes() {
			if !strings.HasPrefix(string(kv.Key), "telemetry.sdk.") {
				got = append(got, string(kv.Key)+"="+kv.Value.Emit())
			}
		}
		slices.Sort(got)
		if strings.Join(got, " ") != c.want {
			t.Errorf("%v: %s, want %s", c.env, strings.Join(got, " "), c.want)
		}
	}
}

// received is what an OTLP receiver got.
type received struct {
	mu   sync.Mutex
	reqs []*collectortrace.ExportTraceServiceRequest
	// paths and contentTypes are the HTTP requests' (OTLP/HTTP only).
	paths, contentTypes []string
}

func (r *received) add(req *collectortrace.ExportTraceServiceRequest, path, ct string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	r.paths = append(r.paths, path)
	r.contentTypes = append(r.contentTypes, ct)
}

// spans lists the spans received as "service/scope: name trace-id".
func (r *received) spans() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, req := range r.reqs {
		for _, rs := range req.ResourceSpans {
			service := attr(rs.GetResource().GetAttributes(), "service.name")
			version := attr(rs.GetResource().GetAttributes(), "service.version")
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					out = append(out, service+"@"+version+" "+ss.GetScope().GetName()+": "+s.Name+" "+hexID(s.TraceId))
				}
			}
		}
	}
	return out
}

func attr(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.GetValue().GetStringValue()
		}
	}
	return ""
}

func hexID(b []byte) string {
	const digits = "0123456789abcdef"
	var s strings.Builder
	for _, c := range b {
		s.WriteByte(digits[c>>4])
		s.WriteByte(digits[c&15])
	}
	return s.String()
}

// oneRequest runs a request through o and shuts the tracer down, which
// exports it.
func oneRequest(t *testing.T, o observe.Observer, shutdown func(context.Context) error) {
	t.Helper()
	if o == nil {
		t.Fatal("tracing is off")
	}
	_, w := observe.Observers{o}.Begin(context.Background(), httpRequest("00-"+inboundTrace+"-"+inboundParent+"-01"))
	w.Routed("coder", "explain", true)
	w.End(observe.Outcome{Status: 200})
	if err := shutdown(context.Background()); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}

// TestOTLPHTTP exports to an OTLP/HTTP receiver named by the base
// endpoint: the spans arrive at /v1/traces, protobuf-encoded, with the
// service's name and version.
func TestOTLPHTTP(t *testing.T) {
	var got received
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Error(err)
		}
		var req collectortrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			t.Errorf("decoding the export: %v", err)
		}
		got.add(&req, r.URL.Path, r.Header.Get("Content-Type"))
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	o, shutdown, err := FromEnv(context.Background(), envOf(map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL + "/otlp/", "OTEL_SERVICE_NAME": "gw-test",
	}), "v1.2.3", nil)
	if err != nil {
		t.Fatal(err)
	}
	oneRequest(t, o, shutdown)
	want := []string{"gw-test@v1.2.3 github.com/agentgw/agentgw: agent coder/explain " + inboundTrace}
	if s := got.spans(); !slices.Equal(s, want) {
		t.Errorf("received %q, want %q", s, want)
	}
	if !slices.Equal(got.paths, []string{"/otlp/v1/traces"}) || !slices.Equal(got.contentTypes, []string{"application/x-protobuf"}) {
		t.Errorf("posted to %q as %q", got.paths, got.contentTypes)
	}
}

// TestOTLPHTTPTracesEndpoint checks that a traces endpoint is used as it
// is, no path appended.
func TestOTLPHTTPTracesEndpoint(t *testing.T) {
	var got received
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.add(&collectortrace.ExportTraceServiceRequest{}, r.URL.Path, r.Header.Get("Content-Type"))
	}))
	defer srv.Close()
	o, shutdown, err := FromEnv(context.Background(), envOf(map[string]string{
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": srv.URL + "/spans", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://elsewhere.invalid:4318",
	}), "v1", nil)
	if err != nil {
		t.Fatal(err)
	}
	oneRequest(t, o, shutdown)
	if !slices.Equal(got.paths, []string{"/spans"}) {
		t.Errorf("posted to %q, want /spans", got.paths)
	}
}

// TestExportFailureLogged checks that an export the receiver refuses is
// logged on the gateway's logger.
func TestExportFailureLogged(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusBadRequest)
	}))
	defer srv.Close()
	var logs strings.Builder
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey || a.Key == "err" {
			return slog.Attr{}
		}
		return a
	}}))
	o, shutdown, err := FromEnv(context.Background(), envOf(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL}), "v1", log)
	if err != nil {
		t.Fatal(err)
	}
	oneRequest(t, o, shutdown)
	want := `level=INFO msg="tracing: exporting spans" exporter=otlp to="OTLP/HTTP ` + srv.URL + `/v1/traces" sampler=ParentBased{root:AlwaysOnSampler,remoteParentSampled:AlwaysOnSampler,remoteParentNotSampled:AlwaysOffSampler,localParentSampled:AlwaysOnSampler,localParentNotSampled:AlwaysOffSampler}
level=WARN msg="tracing: spans not exported" exporter=otlp spans=1
`
	if logs.String() != want {
		t.Errorf("logged:\n%s\nwant:\n%s", logs.String(), want)
	}
}
