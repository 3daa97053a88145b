package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/agentgw/agentgw/mcp/internal/testserver"
	"github.com/agentgw/agentgw/observe/observetest"
)

// TestCallCarriesTrace: a tool call to an MCP server over HTTP carries the
// trace headers the request's observers inject; a call outside any
// request carries none.
func TestCallCarriesTrace(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	h := sdkHandler(testserver.New(testserver.Hooks{}))
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Traceparent"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	c := dial(t, ts.URL, nil)
	mu.Lock()
	seen = nil // the handshake's requests
	mu.Unlock()
	ctx := observetest.Watched(context.Background(), observetest.Injector{Value: "00-tool-span-01"})
	if _, err := c.Call(ctx, "echo", map[string]any{"text": "hi"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	traced := slices.Clone(seen)
	seen = nil
	mu.Unlock()
	if !slices.Contains(traced, "00-tool-span-01") {
		t.Errorf("the MCP server saw Traceparent %q, want the tool's span", traced)
	}
	if _, err := c.Call(context.Background(), "echo", map[string]any{"text": "hi"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, tp := range seen {
		if tp != "" {
			t.Errorf("a call outside any request carried Traceparent %q", tp)
		}
	}
}
