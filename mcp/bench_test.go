package mcp

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agentgw/agentgw/mcp/internal/testserver"
)

// BenchmarkHandlerCall measures one stateless tools/call through NewHandler,
// without the network.
func BenchmarkHandlerCall(b *testing.B) {
	h := echoHandler()
	const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"path":"a/b.go","line":12}}}`
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, serverRequest(body))
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
	}
}

// BenchmarkPoolCall measures a pooled call to a server over each transport.
func BenchmarkPoolCall(b *testing.B) {
	sw := &switchHandler{}
	srv := testserver.New(testserver.Hooks{})
	sw.set(sdkHandler(srv))
	ts := httptest.NewServer(sw)
	defer ts.Close()
	for name, entry := range map[string]string{"http": ts.URL, "stdio": stdioEntry()} {
		b.Run(name, func(b *testing.B) {
			p := NewPool("test", quiet)
			defer p.Close()
			args := map[string]any{"text": "hello"}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Call(b.Context(), entry, nil, "echo", args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
