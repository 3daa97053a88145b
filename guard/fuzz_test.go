package guard_test

import (
	"encoding/json"
	"testing"

	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/observe/observetest"
)

// FuzzGuard: whatever raw message a client sends (the OpenAI endpoint and
// IDE conversations pass messages through as they are), the guard neither
// panics nor makes a request that cannot be encoded: what it sends is
// valid JSON, and a message it did not change is sent byte for byte.
func FuzzGuard(f *testing.F) {
	for _, m := range prompt().Messages {
		if m.Raw != nil {
			f.Add(string(m.Raw), m.Content)
		}
	}
	f.Add(`{"role":"tool","tool_call_id":"c1","content":"[{\"path\":\".env\"},\"{\\\"file\\\":\\\"secrets/x\\\"}\"]"}`, "AKIAZ4GQW7TNKPL3XRVB")
	f.Add(`{"role":"user","content":[{"type":"text","text":"token = ghp_x7Rk2LmQ9vTnB4wZ8pYc3JdF6sHa1GeU5oXi"}]}`, "")
	g := newGuard(f, nil)
	f.Fuzz(func(t *testing.T, raw, text string) {
		if !json.Valid([]byte(raw)) || len(raw) == 0 || raw[0] != '{' {
			return
		}
		ctx, _ := watchedB(t, g, &observetest.Recorder{}, "ops")
		req := &llm.ChatRequest{Messages: []llm.Message{
			toolCalls([3]string{"c1", "read_file", `{"path":".env"}`}),
			{Raw: json.RawMessage(raw)},
			{Role: "user", Content: text},
		}}
		out := g.Guard(ctx, req)
		body, err := out.Body()
		if err != nil {
			t.Fatalf("the guarded request cannot be encoded: %v", err)
		}
		if !json.Valid(body) {
			t.Fatalf("invalid JSON sent: %s", body)
		}
		if string(out.Messages[1].Raw) != raw && len(out.Messages[1].Raw) == 0 {
			t.Fatal("a raw message lost its body")
		}
	})
}
