//go:build !otlpgrpc

package tracing

import (
	"context"
	"testing"
)

// TestOTLPGRPCNotBuilt checks that a build without the otlpgrpc tag
// refuses OTLP/gRPC at start, saying how to get it, and still reports a
// bad endpoint as such.
func TestOTLPGRPCNotBuilt(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, errNoGRPC.Error()},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"}, errNoGRPC.Error()},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, `tracing: the OTLP endpoint "c:4317" is not an http or https URL`},
	} {
		o, shutdown, err := FromEnv(context.Background(), envOf(c.env), "v1", nil)
		if got := errString(err); got != c.want || o != nil {
			t.Errorf("FromEnv(%v): %v, error %q, want %q", c.env, o, got, c.want)
		}
		_ = shutdown(context.Background())
	}
}
