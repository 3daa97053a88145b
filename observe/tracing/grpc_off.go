//go:build !otlpgrpc

package tracing

import (
	"context"
	"errors"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// errNoGRPC is the start's error when OTLP/gRPC is asked of a build
// without it.
var errNoGRPC = errors.New("tracing: OTEL_EXPORTER_OTLP_PROTOCOL=grpc: this agentgw is built without the OTLP/gRPC exporter " +
	"(gRPC, 2.3 MB of the binary); export over http/protobuf (a collector's port 4318) " +
	"or build with it: go build -tags otlpgrpc ./cmd/agentgw")

// newGRPCExporter fails: this build has no OTLP/gRPC exporter. The
// endpoint is checked first so that a bad URL is reported as such.
func newGRPCExporter(_ context.Context, endpoint string) (sdktrace.SpanExporter, string, error) {
	if endpoint != "" {
		if _, err := parseEndpoint(endpoint); err != nil {
			return nil, "", err
		}
	}
	return nil, "", errNoGRPC
}
