//go:build otlpgrpc

package tracing

import (
	"context"
	"net"
	"slices"
	"testing"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
)

// traceService is an OTLP/gRPC receiver.
type traceService struct {
	collectortrace.UnimplementedTraceServiceServer
	got *received
}

func (s traceService) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	s.got.add(req, "", "")
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

// TestOTLPGRPC exports to an OTLP/gRPC receiver on a loopback port.
func TestOTLPGRPC(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var got received
	gs := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(gs, traceService{got: &got})
	go func() { _ = gs.Serve(ln) }()
	defer gs.Stop()
	o, shutdown, err := FromEnv(context.Background(), envOf(map[string]string{
		"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + ln.Addr().String(),
	}), "v2", nil)
	if err != nil {
		t.Fatal(err)
	}
	oneRequest(t, o, shutdown)
	want := []string{"agentgw@v2 github.com/agentgw/agentgw: agent coder/explain " + inboundTrace}
	if s := got.spans(); !slices.Equal(s, want) {
		t.Errorf("received %q, want %q", s, want)
	}
}
