package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/llm/llmtest"
)

// TestRelay relays a normal upstream stream after a reply: one id for all
// text chunks, the upstream's chunks byte for byte but for the id, and
// neither the upstream's finish chunk nor its terminator passed through:
// the gateway's own final chunk carries the upstream's finish reason, so
// the stream has one (issue 29 item 5).
func TestRelay(t *testing.T) {
	t.Parallel()
	gw := newGateway(t, withUpstream(replay(t, "normal.sse")))
	r := post(t, gw.URL+"/agents/chat", `{"command":"greet"}`)
	s := readStream(t, r, "[DONE]")

	want := []string{"chunk", "chunk", "chunk", "chunk", "chunk", "done"}
	if got := s.kinds(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("frames %v, want %v\n%s", got, want, r.body)
	}
	id := s.frames[0].chunk.ID
	if !strings.HasPrefix(id, "chatcmpl-") || id == "chatcmpl-up1" {
		t.Fatalf("response id %q: want our own chatcmpl- id, not the upstream's", id)
	}
	for i, f := range s.of("chunk") {
		if f.chunk.ID != id {
			t.Errorf("chunk %d has id %q, want %q", i, f.chunk.ID, id)
		}
	}
	if got, want := s.text(), "Let me ask the model.\nHello, \"world\"\n"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	// The relayed chunks are the upstream's, only the id rewritten.
	upEvents := llmtest.SplitEvents(string(readUpstream(t, "normal.sse")))
	for i, ev := range upEvents[:3] {
		up := strings.TrimSuffix(strings.TrimPrefix(ev, "data: "), "\n\n")
		wantData := strings.Replace(up, `"id":"chatcmpl-up1"`, `"id":"`+id+`"`, 1)
		if got := s.frames[1+i].data; got != wantData {
			t.Errorf("relayed chunk %d:\n got %s\nwant %s", i, got, wantData)
		}
	}
	if got := strings.Count(string(r.body), `"finish_reason":"`); got != 1 {
		t.Errorf("%d chunks with a finish reason, want the final one only:\n%s", got, r.body)
	}
	if last := s.frames[len(s.frames)-2]; !strings.Contains(last.data, `"finish_reason":"stop"`) {
		t.Errorf("the final chunk %s does not carry the upstream's reason stop", last.data)
	}
	if gw.up.Count() != 1 {
		t.Errorf("the upstream was called %d times, want 1", gw.up.Count())
	}
}

// upstreamBody is the body of the request the upstream received.
type upstreamBody struct {
	fields   map[string]json.RawMessage
	messages []struct{ Role, Content string }
}

func decodeUpstream(t *testing.T, rec llmtest.Request) upstreamBody {
	t.Helper()
	var b upstreamBody
	if err := json.Unmarshal(rec.Body, &b.fields); err != nil {
		t.Fatalf("the upstream got invalid JSON: %v\n%s", err, rec.Body)
	}
	if err := json.Unmarshal(b.fields["messages"], &b.messages); err != nil {
		t.Fatalf("messages: %v\n%s", err, rec.Body)
	}
	return b
}

// relayRequest carries every kind of field: protocol fields, context,
// conversation turns and pass-through fields (one with odd spacing, which
// must arrive verbatim).
const relayRequest = `{"agent":"chat","command":%q,
 "contextVariables":[{"name":"userInputPrompt","value":"What is Go?"},
   {"name":"globalPrompts","value":[{"role":"system","content":"Rule 1"}]}],
 "agentDefinition":{"name":"chat","commands":[{"name":"default"}]},
 "messages":[{"role":"user","content":"earlier"},{"role":"assistant","content":"answer"}],
 "temperature":0.25,"top_p":0.9,"user":"u-42",
 "response_format": {"type": "json_object", "nested": {"x": [1, 2.50, "s"], "y": null}}}`

// TestUpstreamRequest checks what the upstream receives: the path, stream
// true, the prompt in docs/protocol.md §9 order, no protocol fields, the
// pass-through fields unchanged.
func TestUpstreamRequest(t *testing.T) {
	t.Parallel()
	turns := []string{"user: earlier", "assistant: answer", "system: Rule 1"}
	tests := []struct {
		command string
		want    []string
	}{
		{"default", append(append([]string{"system: You are a test assistant."}, turns...), "user: What is Go?")},
		{"templated", append(append([]string{"system: S1", "system: S2 for chat/templated"}, turns...), "user: Q: What is Go?")},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			t.Parallel()
			gw := newGateway(t, withUpstream(replay(t, "normal.sse")))
			readStream(t, post(t, gw.URL+"/agent", sprintf(relayRequest, tt.command)), "[DONE]")
			rec := gw.up.Only(t)
			if rec.Path != "/chat/completions" {
				t.Errorf("path %q, want /chat/completions", rec.Path)
			}
			b := decodeUpstream(t, rec)
			var got []string
			for _, m := range b.messages {
				got = append(got, m.Role+": "+m.Content)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if string(b.fields["stream"]) != "true" {
				t.Errorf("stream = %s, want true", b.fields["stream"])
			}
			for _, k := range []string{"agent", "command", "contextVariables", "agentDefinition", "action"} {
				if v, ok := b.fields[k]; ok {
					t.Errorf("protocol field %q reached the upstream: %s", k, v)
				}
			}
			for k, v := range map[string]string{
				"temperature": `0.25`, "top_p": `0.9`, "user": `"u-42"`,
				"response_format": `{"type": "json_object", "nested": {"x": [1, 2.50, "s"], "y": null}}`,
			} {
				if got := string(b.fields[k]); got != v {
					t.Errorf("pass-through %s = %s, want %s verbatim", k, got, v)
				}
			}
		})
	}
}

// TestModelResolution: the command's model, else the agent's, else the
// request's, else the gateway default, is asked for; the end chunk names
// the model that answered (the upstream's chunks'), which may differ.
func TestModelResolution(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, body, want string
	}{
		{"command over agent and request", "/agents/models", `{"command":"pinned","model":"req-model"}`, "cmd-model"},
		{"agent over request", "/agents/models", `{"model":"req-model"}`, "agent-model"},
		{"agent without request", "/agents/models", `{}`, "agent-model"},
		{"request over default", "/agents/chat", `{"model":"req-model"}`, "req-model"},
		{"gateway default", "/agents/chat", `{}`, "default-model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gw := newGateway(t, withUpstream(replay(t, "normal.sse")))
			s := readStream(t, post(t, gw.URL+tt.path, tt.body), "[DONE]")
			b := decodeUpstream(t, gw.up.Only(t))
			if got := string(b.fields["model"]); got != `"`+tt.want+`"` {
				t.Errorf("upstream model %s, want %q", got, tt.want)
			}
			if got := s.frames[len(s.frames)-2].chunk.Model; got != "gpt-4o-2024-08-06" {
				t.Errorf("the stop chunk names model %q, want the upstream's gpt-4o-2024-08-06", got)
			}
		})
	}
}

// TestRelayToolCalls relays tool_calls deltas unchanged: only the top-level
// id is ours, the tool call's own id stays; the final chunk carries the
// upstream's finish reason, tool_calls, in place of its finish chunk.
func TestRelayToolCalls(t *testing.T) {
	t.Parallel()
	gw := newGateway(t, withUpstream(replay(t, "tool_calls.sse")))
	s := readStream(t, post(t, gw.URL+"/agents/chat", `{"tools":[{"type":"function","function":{"name":"get_weather"}}]}`), "[DONE]")
	if got := strings.Join(s.kinds(), " "); got != "chunk chunk chunk done" {
		t.Fatalf("frames %s", got)
	}
	if last := s.frames[len(s.frames)-2]; !strings.Contains(last.data, `"finish_reason":"tool_calls"`) {
		t.Errorf("the final chunk %s does not carry the upstream's reason tool_calls", last.data)
	}
	id := s.frames[0].chunk.ID
	for i, ev := range llmtest.SplitEvents(string(readUpstream(t, "tool_calls.sse")))[:2] {
		up := strings.TrimSuffix(strings.TrimPrefix(ev, "data: "), "\n\n")
		if want := strings.Replace(up, `"id":"chatcmpl-up3"`, `"id":"`+id+`"`, 1); s.frames[i].data != want {
			t.Errorf("chunk %d:\n got %s\nwant %s", i, s.frames[i].data, want)
		}
	}
	if !strings.Contains(s.frames[0].data, `"id":"call_abc"`) {
		t.Error("the tool call's own id was rewritten")
	}
	b := decodeUpstream(t, gw.up.Only(t))
	if got := string(b.fields["tools"]); got != `[{"type":"function","function":{"name":"get_weather"}}]` {
		t.Errorf("tools %s", got)
	}
}
