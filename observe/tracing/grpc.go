//go:build otlpgrpc

package tracing

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// newGRPCExporter builds the OTLP/gRPC exporter, sending to endpoint (an
// http or https URL; empty: the exporter's default, localhost:4317), and
// says where it sends spans.
func newGRPCExporter(ctx context.Context, endpoint string) (exp sdktrace.SpanExporter, where string, err error) {
	var opts []otlptracegrpc.Option
	where = "the default OTLP/gRPC endpoint"
	if endpoint != "" {
		u, err := parseEndpoint(endpoint)
		if err != nil {
			return nil, "", err
		}
		opts = append(opts, otlptracegrpc.WithEndpointURL(u.String()))
		where = "OTLP/gRPC " + u.Redacted()
	}
	exp, err = otlptracegrpc.New(ctx, opts...)
	if err != nil {
		return nil, "", fmt.Errorf("tracing: the OTLP/gRPC exporter: %w", err)
	}
	return exp, where, nil
}
