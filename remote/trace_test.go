package remote_test

import (
	"context"
	"testing"

	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/observe/observetest"
	"github.com/agentgw/agentgw/remote"
)

// TestForwardCarriesTrace: a forwarded request carries the trace headers
// the request's observers inject (a tracer's traceparent), in place of the
// plugin's.
func TestForwardCarriesTrace(t *testing.T) {
	srv := remoteServer(t, agentStream(llmtest.Done)) // it records the request
	ctx := observetest.Watched(context.Background(), observetest.Injector{Value: "00-gateway-span-01"})
	in := pluginHeader()
	in.Set("Traceparent", "00-plugin-span-01")
	if err := newClient(t, remote.Config{}).Forward(ctx, srv.URL(), "security", []byte(agentBody), in, &recorder{}); err != nil {
		t.Fatal(err)
	}
	got := captureOf(srv.Only(t))
	if tp := got.header.Values("Traceparent"); len(tp) != 1 || tp[0] != "00-gateway-span-01" {
		t.Errorf("the remote got Traceparent %q, want the gateway's span", tp)
	}
}
