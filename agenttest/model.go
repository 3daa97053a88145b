package agenttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/echomodel"
)

// upstreamCall is one request the gateway sent the model.
type upstreamCall struct {
	// Body is the request body exactly as sent.
	Body []byte
	// Model and Messages are read from it.
	Model    string
	Messages []wireMessage
	Tools    []string
	Stream   bool
}

// wireMessage is a message of an upstream request.
type wireMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// replay is an http.RoundTripper that answers the runner's llm client with
// the test's recorded answers, in order, and keeps what it was sent.
type replay struct {
	mu      sync.Mutex
	answers []*Answer
	next    int
	calls   []upstreamCall
	// callSeq numbers the tool calls it made up, for their order.
	callSeq int
	// ids maps the tool call ids it made up to their order.
	ids map[string]int
}

var _ http.RoundTripper = (*replay)(nil)

// reset loads a test's answers.
func (r *replay) reset(answers []*Answer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answers, r.next, r.calls, r.callSeq, r.ids = answers, 0, nil, 0, map[string]int{}
}

// taken returns the calls so far and how many answers were used.
func (r *replay) taken() ([]upstreamCall, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]upstreamCall(nil), r.calls...), r.next
}

// order is the order of the tool call id the replay made up (0 if not).
func (r *replay) order(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ids[id]
}

// RoundTrip implements http.RoundTripper.
func (r *replay) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("agenttest: reading the upstream request: %w", err)
	}
	var wire echomodel.Request
	if err := json.Unmarshal(body, &wire); err != nil {
		return respond(req, http.StatusBadRequest, "application/json", errorBody("the gateway sent a request that is not JSON: "+err.Error())), nil
	}
	call := upstreamCall{Body: body, Model: wire.Model, Stream: wire.Stream}
	for _, m := range wire.Messages {
		call.Messages = append(call.Messages, wireMessage{Role: m.Role, Content: contentText(m.Content)})
	}
	for _, t := range wire.Tools {
		call.Tools = append(call.Tools, t.Function.Name)
	}
	r.mu.Lock()
	r.calls = append(r.calls, call)
	var a *Answer
	if r.next < len(r.answers) {
		a = r.answers[r.next]
		r.next++
	}
	var ids []string
	if a != nil {
		for range a.ToolCalls {
			r.callSeq++
			id := fmt.Sprintf("call_%d", r.callSeq)
			r.ids[id] = r.callSeq
			ids = append(ids, id)
		}
	}
	r.mu.Unlock()
	switch {
	case a == nil:
		return respond(req, http.StatusInternalServerError, "application/json",
			errorBody(fmt.Sprintf("the test records no model answer for call %d (add one under model:)", len(r.calls)))), nil
	case a.Status != 0:
		return respond(req, a.Status, "application/json", errorBody(a.Error)), nil
	case wire.Stream:
		return respond(req, http.StatusOK, "text/event-stream", streamBody(wire.Model, a, ids)), nil
	default:
		return respond(req, http.StatusOK, "application/json", completionBody(wire.Model, a, ids)), nil
	}
}

// contentText is a message's content: a string, or the text parts of a
// list of parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return string(raw)
}

func respond(req *http.Request, status int, contentType string, body []byte) *http.Response {
	return &http.Response{
		StatusCode: status, Status: fmt.Sprintf("%d %s", status, http.StatusText(status)),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {contentType}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}
}

func errorBody(msg string) []byte {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "agenttest"}})
	return b
}

// wireToolCall is a tool call as OpenAI writes it.
type wireToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// toolCalls are a's tool calls with the ids made up for them; index is set
// for stream deltas.
func toolCalls(a *Answer, ids []string, index bool) []wireToolCall {
	out := make([]wireToolCall, 0, len(a.ToolCalls))
	for i, c := range a.ToolCalls {
		tc := wireToolCall{ID: ids[i], Type: "function"}
		if index {
			tc.Index = &i
		}
		tc.Function.Name = c.Name
		tc.Function.Arguments = argumentsJSON(c.Arguments)
		out = append(out, tc)
	}
	return out
}

// argumentsJSON is a recorded call's arguments as JSON text: a string is
// taken as written, anything else is encoded.
func argumentsJSON(v *agent.Value) string {
	x := v.Interface()
	if x == nil {
		return "{}"
	}
	if s, ok := x.(string); ok {
		return s
	}
	b, err := json.Marshal(x)
	if err != nil {
		return "{}"
	}
	return string(b)
}

func answerText(a *Answer) string {
	if a.Text == nil {
		return ""
	}
	return a.Text.Src
}

// streamBody is a as a chat.completion.chunk stream: the text in one
// chunk, the tool calls in another, the finish, usage and [DONE].
func streamBody(model string, a *Answer, ids []string) []byte {
	var b bytes.Buffer
	chunk := func(delta map[string]any, finish any) {
		data, _ := json.Marshal(map[string]any{"id": "chatcmpl-agenttest", "object": "chat.completion.chunk", "created": 0, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(&b, "data: %s\n\n", data)
	}
	if text := answerText(a); text != "" || len(a.ToolCalls) == 0 {
		chunk(map[string]any{"role": "assistant", "content": text}, nil)
	}
	finish := "stop"
	if len(a.ToolCalls) > 0 {
		chunk(map[string]any{"role": "assistant", "tool_calls": toolCalls(a, ids, true)}, nil)
		finish = "tool_calls"
	}
	chunk(map[string]any{}, finish)
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// completionBody is a as a chat.completion.
func completionBody(model string, a *Answer, ids []string) []byte {
	msg := map[string]any{"role": "assistant", "content": answerText(a)}
	finish := "stop"
	if len(a.ToolCalls) > 0 {
		msg["tool_calls"] = toolCalls(a, ids, false)
		finish = "tool_calls"
	}
	data, _ := json.Marshal(map[string]any{"id": "chatcmpl-agenttest", "object": "chat.completion", "created": 0, "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}})
	return data
}
