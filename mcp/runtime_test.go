package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/tools"
)

// TestRuntime: tools of runtime mcp, compiled by a tools.Manager, call the
// tools of an MCP server over both transports; a tool's own failure is
// TOOL_FAILED with its text, and parameters are validated first.
func TestRuntime(t *testing.T) {
	pool := NewPool("test", slog.New(slog.DiscardHandler))
	defer pool.Close()
	tm := tools.NewManager(tools.Config{})
	tm.Register(&Runtime{Pool: pool})
	for transport, entry := range transports(t) {
		t.Run(transport, func(t *testing.T) {
			add, _, err := tm.Compile(tools.Spec{Name: "plus", Description: "adds", Runtime: "mcp", Entry: entry, Remote: "add",
				Parameters: map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "number"}, "b": map[string]any{"type": "number"}}, "required": []any{"a", "b"}}},
				t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			r := add.Call(context.Background(), tools.Call{ID: "c1", Parameters: map[string]any{"a": 2.0, "b": 3.0}})
			if r.Status != toolspec.StatusSuccess || !strings.Contains(toJSON(t, r.Result), "5") {
				t.Fatalf("add: %+v", r)
			}
			if r := add.Call(context.Background(), tools.Call{ID: "c2", Parameters: map[string]any{"a": "x"}}); r.Error == nil || r.Error.Code != toolspec.CodeInvalidParameters {
				t.Fatalf("invalid parameters reached the server: %+v", r)
			}
			if r := add.Call(context.Background(), tools.Call{ID: "c2b", Parameters: map[string]any{"a": 2.0, "b": 3.0, "exec": "id"}}); r.Error == nil ||
				r.Error.Code != toolspec.CodeInvalidParameters || !strings.Contains(r.Error.Message, `"exec": not declared`) {
				t.Fatalf("an undeclared parameter reached the server: %+v", r)
			}
			fail, _, err := tm.Compile(tools.Spec{Name: "fail", Description: "fails", Runtime: "mcp", Entry: entry}, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if r := fail.Call(context.Background(), tools.Call{ID: "c3", Parameters: map[string]any{}}); r.Status != toolspec.StatusError || r.Error.Code != toolspec.CodeToolFailed {
				t.Fatalf("fail: %+v", r)
			}
		})
	}
	if _, _, err := tm.Compile(tools.Spec{Name: "x", Description: "d", Runtime: "mcp", Entry: `server "unterminated`}, t.TempDir()); err == nil {
		t.Fatal("a bad entry compiled")
	}
}

// TestRuntimeCheck: Compile judges an entry as Dial does, and a missing
// entry is reported once.
func TestRuntimeCheck(t *testing.T) {
	tm := tools.NewManager(tools.Config{})
	tm.Register(&Runtime{})
	tests := []struct{ entry, err string }{
		{"", "entry: missing"},
		{"http:localhost/mcp", "invalid URL"},
		{" https://", "invalid URL"},
		{`server "unterminated`, "unterminated double quote"},
		{"https://example.com/mcp", ""},
		{"my-server --stdio 'a b'", ""},
	}
	for _, tt := range tests {
		_, _, err := tm.Compile(tools.Spec{Name: "x", Description: "d", Runtime: "mcp", Entry: tt.entry}, t.TempDir())
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("entry %q: %v", tt.entry, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err) || strings.Count(err.Error(), "entry") != 1):
			t.Errorf("entry %q: error %v, want one entry error with %q", tt.entry, err, tt.err)
		}
	}
}

// TestExportServes: a tool exported through Export answers MCP clients on
// a handler, successes as results and failures as tool errors.
func TestExportServes(t *testing.T) {
	tm := tools.NewManager(tools.Config{Builtins: map[string]tools.BuiltinFunc{
		"hello": func(_ context.Context, p map[string]any) (any, error) { return "hello " + p["name"].(string), nil },
	}})
	hello, _, err := tm.Compile(tools.Spec{Name: "hello", Description: "greets", Runtime: "builtin", Export: true,
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"}}}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(NewHandler("test", "1", func() []ExportedTool { return []ExportedTool{Export(hello)} }, slog.New(slog.DiscardHandler)))
	defer srv.Close()
	c := dial(t, srv.URL, nil)
	if infos := listTools(t, c); len(infos) != 1 || infos[0].Name != "hello" || !strings.Contains(string(infos[0].InputSchema), `"name"`) {
		t.Fatalf("tools %+v", infos)
	}
	got, err := c.Call(context.Background(), "hello", map[string]any{"name": "ann"})
	if err != nil || got != "hello ann" {
		t.Fatalf("call: %v, %v", got, err)
	}
	if _, err := c.Call(context.Background(), "hello", map[string]any{}); err == nil || !strings.Contains(err.Error(), "INVALID_PARAMETERS") {
		t.Fatalf("invalid call: %v", err)
	}
	if _, err := c.Call(context.Background(), "hello", map[string]any{"name": "ann", "exec": "id"}); err == nil ||
		!strings.Contains(err.Error(), "INVALID_PARAMETERS") || !strings.Contains(err.Error(), `"exec": not declared`) {
		t.Fatalf("an MCP client's undeclared parameter: %v", err)
	}
}

func toJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
