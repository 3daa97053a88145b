package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentgw/agentgw/internal/golden"
	"github.com/agentgw/agentgw/llm/llmtest"
)

// delta makes a chunk of the given delta and finish_reason (raw JSON).
func delta(d, finish string) string {
	return `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":` + d + `,"finish_reason":` + finish + `}]}`
}

// TestToolCallSinkChunks feeds chunk sequences that recordings do not
// cover.
func TestToolCallSinkChunks(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		passed []int
		calls  []ToolCall
		text   string
		finish string
	}{
		{"index order, not arrival order", []string{
			delta(`{"tool_calls":[{"index":1,"id":"b","function":{"name":"second","arguments":"{}"}}]}`, `null`),
			delta(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"first","arguments":"{}"}}]}`, `null`),
		}, nil, []ToolCall{{"a", "first", "{}"}, {"b", "second", "{}"}}, "", ""},
		{"every call numbered 0", []string{
			delta(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\":1}"}}]}`, `null`),
			delta(`{"tool_calls":[{"index":0,"id":"b","function":{"name":"g","arguments":"{\"y\":2}"}}]}`, `"tool_calls"`),
		}, nil, []ToolCall{{"a", "f", `{"x":1}`}, {"b", "g", `{"y":2}`}}, "", "tool_calls"},
		{"id repeated in every fragment", []string{
			delta(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\""}}]}`, `null`),
			delta(`{"tool_calls":[{"index":0,"id":"a","function":{"arguments":":1}"}}]}`, `null`),
		}, nil, []ToolCall{{"a", "f", `{"x":1}`}}, "", ""},
		{"no index: by id, then the last call", []string{
			delta(`{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{"}},{"id":"b","function":{"name":"g","arguments":"["}}]}`, `null`),
			delta(`{"tool_calls":[{"id":"a","function":{"arguments":"}"}},{"function":{"arguments":"]"}}]}`, `null`),
		}, nil, []ToolCall{{"a", "f", "{}"}, {"b", "g", "[]"}}, "", ""},
		{"arguments as an object", []string{
			delta(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":{"x":1}}}]}`, `null`),
		}, nil, []ToolCall{{"a", "f", `{"x":1}`}}, "", ""},
		{"content and tool calls in one chunk: passed on", []string{
			delta(`{"content":"Checking.","tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":""}}]}`, `null`),
			delta(`{"content":"","tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}`, `null`),
		}, []int{0}, []ToolCall{{"a", "f", "{}"}}, "Checking.", ""},
		{"text that mentions tool_calls", []string{
			delta(`{"content":"the tool_calls field"}`, `null`),
			delta(`{}`, `"stop"`),
		}, []int{0, 1}, nil, "the tool_calls field", "stop"},
		{"a finish_reason of tool_calls alone is dropped", []string{
			delta(`{"content":"x"}`, `null`),
			delta(`{}`, `"tool_calls"`),
		}, []int{0}, nil, "x", "tool_calls"},
		{"other finish reasons", []string{delta(`{}`, `"length"`), delta(`{}`, `"my\"reason"`)},
			[]int{0, 1}, nil, "", `my"reason`},
		{"an empty finish_reason is none, on every path", []string{
			delta(`{}`, `"stop"`),
			delta(`{}`, `""`),
			"{\"choices\": [{\"delta\": {}, \"finish_reason\": \"\"}]}",
			delta(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]}`, `""`),
		}, []int{0, 1, 2}, []ToolCall{{"a", "f", "{}"}}, "", "stop"},
		{"escapes and unicode in text", []string{
			delta(`{"content":"a\u00e9\ud83d\ude00\n\"é\\"}`, `null`),
			delta(`{"content":null}`, `null`),
		}, []int{0, 1}, nil, "aé😀\n\"é\\", ""},
		{"written with spaces", []string{
			"{\"id\": \"c\", \"choices\": [ {\"index\": 0, \"delta\" : {\"role\": \"assistant\", \"content\": \"hi \\\"x\\\"\"}, \"finish_reason\": null}]}",
			"{\"choices\": [{\"index\": 0, \"delta\": {}, \"finish_reason\" : \"stop\"}]}",
			`{"choices":[],"usage":{"total_tokens":1}}`,
		}, []int{0, 1, 2}, nil, `hi "x"`, "stop"},
		{"not for Next to drop: malformed, other choice, no choices", []string{
			`{"choices":[{"delta":{"tool_calls":[{"index":"0"}]}}]}`,
			`{"choices":[{"index":1,"delta":{"tool_calls":[{"index":0,"id":"z"}]}}]}`,
			`{"choices":[],"tool_calls":1}`,
			`{"choices":[{"delta":{"tool_calls":`,
		}, []int{0, 1, 2, 3}, nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := &recordSink{}
			s := &ToolCallSink{Next: next}
			var want []string
			for i, c := range tt.chunks {
				if err := s.Chunk([]byte(c)); err != nil {
					t.Fatal(err)
				}
				if slices.Contains(tt.passed, i) {
					want = append(want, c)
				}
			}
			if got := next.list(); !slices.Equal(got, want) {
				t.Errorf("passed on %q, want %q", got, want)
			}
			if got := s.Calls(); !slices.Equal(got, tt.calls) {
				t.Errorf("Calls() = %q, want %q", got, tt.calls)
			}
			if s.Text() != tt.text || s.FinishReason() != tt.finish {
				t.Errorf("Text() = %q, FinishReason() = %q; want %q, %q", s.Text(), s.FinishReason(), tt.text, tt.finish)
			}
		})
	}
}

// TestToolCallSinkNextErrors: Next's errors come back from every method.
func TestToolCallSinkNextErrors(t *testing.T) {
	text := []byte(delta(`{"content":"x"}`, `null`))
	tool := []byte(delta(`{"tool_calls":[{"index":0,"id":"a"}]}`, `null`))
	failing := &batchSink{failBuffer: errSinkTest, failFlush: errSinkTest}
	s := &ToolCallSink{Next: failing}
	if err := s.BufferChunk(text); !errors.Is(err, errSinkTest) {
		t.Errorf("BufferChunk: %v", err)
	}
	if err := s.Chunk(tool); !errors.Is(err, errSinkTest) {
		t.Errorf("Chunk of a dropped chunk does not flush: %v", err)
	}
	if err := s.Flush(); !errors.Is(err, errSinkTest) {
		t.Errorf("Flush: %v", err)
	}
	plain := &ToolCallSink{Next: &recordSink{failAt: 1}}
	if err := plain.BufferChunk(text); !errors.Is(err, errSinkTest) {
		t.Errorf("BufferChunk into a plain Sink: %v", err)
	}
	if err := plain.Flush(); err != nil {
		t.Errorf("Flush of a plain Sink: %v", err)
	}
}

func TestBodyToolsGolden(t *testing.T) {
	req := &ChatRequest{
		Model:    "gpt-4o",
		Messages: []Message{{Role: "user", Content: "weather in Paris?"}},
		Tools: []json.RawMessage{
			json.RawMessage(`{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}`),
			json.RawMessage(`{"type":"function","function":{"name":"get_time"}}`),
		},
		ToolChoice: json.RawMessage(`"auto"`),
		Extra: []Field{
			{Key: "tools", Value: json.RawMessage(`[{"type":"function","function":{"name":"client_tool"}}]`)},
			{Key: "temperature", Value: json.RawMessage(`0`)},
			{Key: "tool_choice", Value: json.RawMessage(`"required"`)},
			{Key: "parallel_tool_calls", Value: json.RawMessage(`true`)},
		},
	}
	body, err := req.Body()
	if err != nil || !json.Valid(body) {
		t.Fatalf("Body() = %s, %v", body, err)
	}
	golden.Check(t, "testdata/body_tools.golden.json", append(body, '\n'))
}

func TestBodyToolsFromExtra(t *testing.T) {
	extra := []Field{{Key: "tools", Value: json.RawMessage(`[1]`)}, {Key: "tool_choice", Value: json.RawMessage(`"none"`)}}
	tests := []struct {
		req  ChatRequest
		want string
	}{
		{ChatRequest{Extra: extra}, `{"tools":[1],"tool_choice":"none","messages":[],"stream":true}`},
		{ChatRequest{Extra: extra, ToolChoice: json.RawMessage(`"auto"`)},
			`{"tools":[1],"tool_choice":"auto","messages":[],"stream":true}`},
		{ChatRequest{Extra: extra, Tools: []json.RawMessage{json.RawMessage(`2`)}},
			`{"tools":[2],"messages":[],"stream":true}`},
	}
	for _, tt := range tests {
		if body, err := tt.req.Body(); err != nil || string(body) != tt.want {
			t.Errorf("Body() = %s, %v; want %s", body, err, tt.want)
		}
	}
	for _, bad := range []ChatRequest{
		{Tools: []json.RawMessage{json.RawMessage(`{`)}},
		{Tools: []json.RawMessage{nil}},
		{ToolChoice: json.RawMessage(`auto`)},
	} {
		if body, err := bad.Body(); err == nil {
			t.Errorf("Body() = %s, want an error", body)
		}
	}
}

func TestCompleteTools(t *testing.T) {
	answer, err := os.ReadFile(filepath.Join("testdata", "completion_tool_calls.json"))
	if err != nil {
		t.Fatal(err)
	}
	u := newUpstream(t, llmtest.Respond(func(r llmtest.Request) llmtest.Reply {
		if bytes.Contains(r.Body, []byte(`"tool_choice":"none"`)) {
			return llmtest.JSON(http.StatusOK, `{"choices":[{"message":{"role":"assistant","content":"Sunny."},"finish_reason":"stop"}]}`)
		}
		return llmtest.JSON(http.StatusOK, string(answer))
	}))
	c := newTestClient(t, u, Config{})
	req := &ChatRequest{Model: "gpt-4o", Messages: []Message{{Role: "user", Content: "weather and time in Paris?"}},
		Tools: []json.RawMessage{json.RawMessage(`{"type":"function","function":{"name":"get_weather"}}`)}}
	text, calls, err := c.CompleteTools(context.Background(), req)
	want := []ToolCall{
		{ID: "call_j1", Name: "get_weather", Arguments: `{"city":"Paris"}`},
		{ID: "call_j2", Name: "get_time", Arguments: `{"tz":"Europe/Paris"}`},
	}
	if err != nil || text != "" || !slices.Equal(calls, want) {
		t.Fatalf("CompleteTools = %q, %q, %v", text, calls, err)
	}
	if sent := string(u.Last(t).Body); sent != `{"model":"gpt-4o","tools":[{"type":"function","function":{"name":"get_weather"}}],`+
		`"messages":[{"role":"user","content":"weather and time in Paris?"}],"stream":false}` {
		t.Errorf("body %s", sent)
	}
	req.ToolChoice = json.RawMessage(`"none"`)
	text, calls, err = c.CompleteTools(context.Background(), req)
	if err != nil || text != "Sunny." || calls != nil {
		t.Errorf("CompleteTools without calls = %q, %q, %v", text, calls, err)
	}
	u.Close()
	if _, _, err := c.CompleteTools(context.Background(), req); err == nil {
		t.Error("CompleteTools with the upstream gone succeeded")
	} else {
		asError(t, err, KindUnavailable)
	}
}

func TestAssistantAndToolMessages(t *testing.T) {
	calls := []ToolCall{{ID: "call_1", Name: "grep", Arguments: `{"q":"x"}`}, {ID: "call_2", Name: "ls", Arguments: ""}}
	tests := []struct {
		msg  Message
		role string
		want string
	}{
		{AssistantMessage("", calls[:1]), "assistant", `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1",` +
			`"type":"function","function":{"name":"grep","arguments":"{\"q\":\"x\"}"}}]}`},
		{AssistantMessage("Let me <look>\n", calls), "assistant", `{"role":"assistant","content":"Let me <look>\n",` +
			`"tool_calls":[{"id":"call_1","type":"function","function":{"name":"grep","arguments":"{\"q\":\"x\"}"}},` +
			`{"id":"call_2","type":"function","function":{"name":"ls","arguments":""}}]}`},
		{ToolMessage("call_1", "no match \"here\"\n"), "tool", `{"role":"tool","tool_call_id":"call_1","content":"no match \"here\"\n"}`},
	}
	for _, tt := range tests {
		if string(tt.msg.Raw) != tt.want || tt.msg.Role != tt.role {
			t.Errorf("message %s (role %q)\nwant %s", tt.msg.Raw, tt.msg.Role, tt.want)
		}
		var m openai.ChatCompletionMessage // what an OpenAI client reads
		if err := json.Unmarshal(tt.msg.Raw, &m); err != nil || m.Role != tt.role {
			t.Errorf("go-openai reads %s as %+v, %v", tt.msg.Raw, m, err)
		}
	}
	if m := AssistantMessage("plain", nil); m.Raw != nil || m.Role != "assistant" || m.Content != "plain" {
		t.Errorf("AssistantMessage without calls = %+v", m)
	}
	body, err := (&ChatRequest{Messages: []Message{AssistantMessage("", calls), ToolMessage("call_1", "r")}}).Body()
	if err != nil || !json.Valid(body) {
		t.Errorf("a body with the messages: %s, %v", body, err)
	}
}
