package mcp

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzResultValue feeds tools/call results, as an MCP server might send them,
// through the conversion Call applies.
func FuzzResultValue(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}`,
		`{"content":[{"type":"text","text":"x"}],"isError":true}`,
		`{"content":[],"structuredContent":{"k":[1,2]}}`,
		`{"content":[{"type":"image","data":"cG5n","mimeType":"image/png"}]}`,
		`{"content":null}`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var res sdk.CallToolResult
		if err := json.Unmarshal(data, &res); err != nil {
			return
		}
		v, err := resultValue(&res)
		var te *ToolError
		switch {
		case res.IsError:
			if !errors.As(err, &te) || v != nil {
				t.Fatalf("isError result gave %v, %v", v, err)
			}
		case err != nil:
			t.Fatalf("error %v for a non-error result", err)
		case res.StructuredContent == nil:
			if _, ok := v.(string); !ok {
				t.Fatalf("unstructured result gave %T", v)
			}
		}
	})
}

// FuzzDecodeArgs feeds tools/call arguments, as an IDE might send them, to
// the handler's decoder.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{`{"a":1}`, ` null `, ``, `[1]`, `"s"`, `{"a":`, `{"a":{"b":[null,true,1e400]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		args, err := decodeArgs(raw)
		if err != nil {
			return
		}
		if args == nil {
			t.Fatal("nil args without error")
		}
		if trimmed := strings.Trim(string(raw), " \t\r\n"); trimmed != "" && trimmed != "null" && !json.Valid(raw) {
			t.Fatalf("accepted invalid JSON %q", raw)
		}
	})
}

// FuzzHandler posts arbitrary bodies to the /mcp handler.
func FuzzHandler(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"x":1}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":"x"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`,
		`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`, `{`, ``,
	} {
		f.Add(s)
	}
	h := echoHandler()
	f.Fuzz(func(t *testing.T, body string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, serverRequest(body))
		if rec.Code >= 500 {
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
		}
	})
}
