package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/golden"
)

// TestHandlerWire posts raw JSON-RPC messages, the way an IDE does, and
// compares the exact response bodies with testdata/wire/*.golden.
func TestHandlerWire(t *testing.T) {
	tools := func() []ExportedTool {
		return []ExportedTool{
			returning("text", "plain <text>", false, nil, nil),
			returning("object", map[string]any{"b": []int{1}, "a": "x"}, false, nil, nil),
			returning("fail", "it broke", true, nil, nil),
			{Name: "args", Description: "echoes its arguments", Call: func(_ context.Context, args map[string]any) (any, bool, error) {
				return args, false, nil
			}},
		}
	}
	ts := httptest.NewServer(NewHandler("agentgw", "v9", tools, quiet))
	defer ts.Close()
	tests := []struct{ name, body string }{
		{"list", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"call_text", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"text"}}`},
		{"call_object", `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"object","arguments":{}}}`},
		{"call_fail", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fail"}}`},
		{"call_args", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"args","arguments":{"n":12345678901,"s":"é"}}}`},
		{"call_unknown", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope"}}`},
		{"call_bad_args", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"args","arguments":[1]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden.Check(t, "testdata/wire/"+tt.name+".golden", []byte(post(t, ts.URL, tt.body)))
		})
	}
}

// post sends one JSON-RPC message as an IDE on protocol 2025-06-18 does and
// returns the status line's code, content type and body.
func post(t *testing.T, url, body string) string {
	t.Helper()
	if !json.Valid([]byte(body)) {
		t.Fatalf("invalid test body %s", body)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	setIDEHeaders(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.Status + "\n" + resp.Header.Get("Content-Type") + "\n\n" + string(b)
}

// setIDEHeaders sets the headers an IDE on protocol 2025-06-18 sends with
// a JSON-RPC message.
func setIDEHeaders(req *http.Request) {
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
}

// serverRequest is a POST of body to /mcp as the handler receives it.
func serverRequest(body string) *http.Request {
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	setIDEHeaders(req)
	return req
}

// echoHandler serves one stateless tool, echo, which returns its arguments.
func echoHandler() http.Handler {
	echo := ExportedTool{Name: "echo", Call: func(_ context.Context, args map[string]any) (any, bool, error) {
		return args, false, nil
	}}
	return NewHandler("agentgw", "v9", func() []ExportedTool { return []ExportedTool{echo} }, quiet)
}
