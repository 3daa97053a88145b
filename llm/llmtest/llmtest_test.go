package llmtest_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/deptest"
	"github.com/agentgw/agentgw/llm/llmtest"
)

// post sends body to the model and returns the status, content type and
// the body read up to the first error, with that error.
func post(t *testing.T, ctx context.Context, url, body string) (int, string, string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", "", err
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(got), err
}

const streamReq = `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`

func TestReplies(t *testing.T) {
	text := `{"id":"chatcmpl-llmtest","object":"chat.completion.chunk","created":0,"model":"llmtest","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}`
	stop := `{"id":"chatcmpl-llmtest","object":"chat.completion.chunk","created":0,"model":"llmtest","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
	tests := []struct {
		name   string
		reply  llmtest.Reply
		body   string // the request
		status int
		ctype  string
		want   string
	}{
		{"text", llmtest.Text("Hel", "lo"), streamReq, 200, "text/event-stream",
			"data: " + text + "\n\n" +
				`data: {"id":"chatcmpl-llmtest","object":"chat.completion.chunk","created":0,"model":"llmtest","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":null}]}` + "\n\n" +
				"data: " + stop + "\n\ndata: [DONE]\n\n"},
		{"text is the helpers' frames", llmtest.Text("a", "b"), streamReq, 200, "text/event-stream",
			llmtest.SSE(llmtest.TextChunk("a"), llmtest.TextChunk("b"), llmtest.FinishChunk("stop"))},
		{"text not streamed", llmtest.Text("Hel", "lo"), `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, 200, "application/json",
			`{"id":"chatcmpl-llmtest","object":"chat.completion","created":0,"model":"llmtest","choices":[{"index":0,"message":{"role":"assistant","content":"Hello"},"finish_reason":"stop"}]}`},
		{"tool calls", llmtest.Answer{Model: "gpt", Text: []string{"let me see"}, Calls: []llmtest.ToolCall{{ID: "c1", Name: "add", Arguments: `{"a":1}`}, {ID: "c2", Name: "ls", Arguments: `{}`}}}.Reply(),
			streamReq, 200, "text/event-stream",
			`data: {"id":"chatcmpl-llmtest","object":"chat.completion.chunk","created":0,"model":"gpt","choices":[{"index":0,"delta":{"content":"let me see"},"finish_reason":null}]}` + "\n\n" +
				`data: {"id":"chatcmpl-llmtest","object":"chat.completion.chunk","created":0,"model":"gpt","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"add","arguments":"{\"a\":1}"}}]},"finish_reason":null}]}` + "\n\n" +
				`data: {"id":"chatcmpl-llmtest","object":"chat.completion.chunk","created":0,"model":"gpt","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"c2","type":"function","function":{"name":"ls","arguments":"{}"}}]},"finish_reason":null}]}` + "\n\n" +
				`data: {"id":"chatcmpl-llmtest","object":"chat.completion.chunk","created":0,"model":"gpt","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n" +
				"data: [DONE]\n\n"},
		{"tool calls not streamed", llmtest.Calls(llmtest.ToolCall{ID: "c1", Name: "add", Arguments: `{}`}), `{"stream":false,"messages":[]}`, 200, "application/json",
			`{"id":"chatcmpl-llmtest","object":"chat.completion","created":0,"model":"llmtest","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"add","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`},
		{"usage", llmtest.Answer{Text: []string{"Hel"}, Usage: &llmtest.Usage{PromptTokens: 3, CompletionTokens: 1, TotalTokens: 4}}.Reply(), streamReq, 200, "text/event-stream",
			"data: " + text + "\n\ndata: " + stop + "\n\n" +
				`data: {"id":"chatcmpl-llmtest","object":"chat.completion.chunk","created":0,"model":"llmtest","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}` + "\n\ndata: [DONE]\n\n"},
		{"split arguments", llmtest.Frames(llmtest.ToolCallChunk(0, llmtest.ToolCall{ID: "c", Name: "f", Arguments: `{"a"`}), llmtest.ArgumentsChunk(0, `:1}`)), streamReq, 200, "text/event-stream",
			`data: {"id":"chatcmpl-llmtest","object":"chat.completion.chunk","created":0,"model":"llmtest","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\""}}]},"finish_reason":null}]}` + "\n\n" +
				`data: {"id":"chatcmpl-llmtest","object":"chat.completion.chunk","created":0,"model":"llmtest","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]},"finish_reason":null}]}` + "\n\n" +
				"data: [DONE]\n\n"},
		{"error", llmtest.Error(http.StatusTooManyRequests, `slow "down"`), streamReq, 429, "application/json", `{"error":{"message":"slow \"down\""}}`},
		{"json as is", llmtest.JSON(http.StatusBadGateway, "<html>"), streamReq, 502, "application/json", "<html>"},
		{"header", llmtest.Reply{Status: 503, Header: http.Header{"Content-Type": {"text/plain"}}, Body: "busy"}, streamReq, 503, "text/plain", "busy"},
		{"mid-stream error", llmtest.Stream(llmtest.Data(llmtest.TextChunk("Hel")), llmtest.Data(llmtest.ErrorChunk("boom"))), streamReq, 200, "text/event-stream",
			"data: " + text + "\n\n" + `data: {"error":{"message":"boom"}}` + "\n\n"},
		{"truncated", llmtest.Text("Hel", "lo").Truncated(), streamReq, 200, "text/event-stream",
			"data: " + text + "\n\n" +
				`data: {"id":"chatcmpl-llmtest","object":"chat.completion.chunk","created":0,"model":"llmtest","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":null}]}` + "\n\n" +
				"data: " + stop + "\n\n"},
		{"truncated is streamed to a request that does not stream", llmtest.Text("Hel").Truncated(), `{"messages":[]}`, 200, "text/event-stream",
			"data: " + text + "\n\ndata: " + stop + "\n\n"},
		{"cut mid-frame", llmtest.Text("Hel", "lo").Cut(len("data: "+text+"\n\n") + 10), streamReq, 200, "text/event-stream",
			"data: " + text + "\n\n" + `data: {"id`},
		{"paced and delayed", llmtest.Answer{Text: []string{"Hel"}, Pace: time.Millisecond}.Reply().Delay(time.Millisecond), streamReq, 200, "text/event-stream",
			"data: " + text + "\n\ndata: " + stop + "\n\ndata: [DONE]\n\n"},
		{"empty stream", llmtest.Stream(), streamReq, 200, "text/event-stream", ""},
		{"raw", llmtest.Stream(llmtest.Raw(": ping\r\n\r\n"), llmtest.Raw("data: x\n\n")), streamReq, 200, "text/event-stream", ": ping\r\n\r\ndata: x\n\n"},
		{"handler", llmtest.Handle(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			w.WriteHeader(418)
			_, _ = io.WriteString(w, r.URL.Path+" "+string(body))
		}), `{"a":1}`, 418, "text/plain; charset=utf-8", `/chat/completions {"a":1}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := llmtest.New(t, llmtest.Replies(tc.reply))
			status, ctype, got, err := post(t, t.Context(), m.URL(), tc.body)
			if err != nil {
				t.Fatal(err)
			}
			if status != tc.status || ctype != tc.ctype {
				t.Errorf("status %d %q, want %d %q", status, ctype, tc.status, tc.ctype)
			}
			if got != tc.want {
				t.Errorf("body:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestAbort(t *testing.T) {
	m := llmtest.New(t, llmtest.Replies(llmtest.Stream(llmtest.Raw("data: {\"cho"), llmtest.Abort())))
	_, _, got, err := post(t, t.Context(), m.URL(), streamReq)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("err = %v, want an unexpected EOF", err)
	}
	if got != `data: {"cho` {
		t.Errorf("read %q before the cut", got)
	}
}

func TestRecordsRequests(t *testing.T) {
	m := llmtest.New(t, llmtest.Replies(llmtest.Text("a")), llmtest.Respond(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Text("echo:" + r.LastMessage().Content)
	}))
	bodies := []string{
		`{"model":"m1","stream":true,"messages":[{"role":"system","content":"sys"},{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}],"tools":[{"type":"function","function":{"name":"add"}}]}`,
		`{"model":"m2","stream":true,"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"add","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"3"}]}`,
		`not json`,
	}
	var got []string
	for _, b := range bodies {
		_, _, body, err := post(t, t.Context(), m.URL(), b)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, body)
	}
	if want := llmtest.SSE(llmtest.TextChunk("echo:3"), llmtest.FinishChunk("stop")); got[1] != want {
		t.Errorf("answer 1 = %q, want %q", got[1], want)
	}
	reqs := m.Requests()
	if len(reqs) != 3 || m.Count() != 3 {
		t.Fatalf("%d requests recorded, want 3", len(reqs))
	}
	for i, r := range reqs {
		if r.N != i || string(r.Body) != bodies[i] || r.Method != "POST" || r.Path != "/chat/completions" ||
			r.Header.Get("Authorization") != "Bearer k" || r.ContentLength != int64(len(bodies[i])) {
			t.Errorf("request %d recorded as %+v", i, r)
		}
	}
	r0 := reqs[0]
	if r0.Model != "m1" || !r0.Stream || len(r0.Messages) != 2 || r0.Messages[1].Content != "ab" || r0.Messages[0].Role != "system" ||
		strings.Join(r0.Tools, ",") != "add" {
		t.Errorf("request 0 decoded as %+v", r0)
	}
	r1 := reqs[1]
	if c := r1.Messages[0].ToolCalls; len(c) != 1 || c[0] != (llmtest.ToolCall{ID: "c1", Name: "add", Arguments: "{}"}) || r1.Messages[1].ToolCallID != "c1" {
		t.Errorf("request 1 decoded as %+v", r1)
	}
	if r := m.Last(t); r.N != 2 || r.Model != "" || r.Messages != nil || r.JSON() != nil {
		t.Errorf("last request decoded as %+v", r)
	}
	if r0.JSON()["model"] != "m1" {
		t.Errorf("JSON() = %v", r0.JSON())
	}
}

func TestUnscripted(t *testing.T) {
	m := llmtest.New(t, llmtest.Replies(llmtest.Text("a")))
	if _, _, _, err := post(t, t.Context(), m.URL(), streamReq); err != nil {
		t.Fatal(err)
	}
	status, _, got, err := post(t, t.Context(), m.URL(), streamReq)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"error":{"message":"llmtest: no reply scripted for request 1"}}`; status != 500 || got != want {
		t.Errorf("got %d %s, want 500 %s", status, got, want)
	}
	m.Push(llmtest.Text("b"))
	if _, _, got, _ := post(t, t.Context(), m.URL(), streamReq); got != llmtest.SSE(llmtest.TextChunk("b"), llmtest.FinishChunk("stop")) {
		t.Errorf("pushed reply answered %q", got)
	}
}

func TestGate(t *testing.T) {
	g := llmtest.NewGate()
	m := llmtest.New(t, llmtest.Replies(llmtest.Text("a").Hold(g), llmtest.Stream(llmtest.Data(llmtest.TextChunk("b")), llmtest.Wait(g), llmtest.DoneEvent())))
	type result struct {
		body string
		err  error
	}
	first := make(chan result, 1)
	go func() {
		_, _, body, err := post(t, context.Background(), m.URL(), streamReq)
		first <- result{body, err}
	}()
	<-g.Reached()
	g.Release()
	if r := <-first; r.err != nil || r.body != llmtest.SSE(llmtest.TextChunk("a"), llmtest.FinishChunk("stop")) {
		t.Errorf("held reply: %q, %v", r.body, r.err)
	}
	// The gate is open now: the second reply passes it.
	if _, _, got, err := post(t, t.Context(), m.URL(), streamReq); err != nil || got != llmtest.SSE(llmtest.TextChunk("b")) {
		t.Errorf("second reply: %q, %v", got, err)
	}
}

// TestCancel: a client that leaves ends the reply that waits, and a
// released model ends a stall.
func TestCancel(t *testing.T) {
	for _, reply := range []llmtest.Reply{llmtest.Text("a").Hold(llmtest.NewGate()), llmtest.Stream(llmtest.Stall())} {
		m := llmtest.New(t, llmtest.Replies(reply))
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			_, _, _, err := post(t, ctx, m.URL(), streamReq)
			done <- err
		}()
		for m.Count() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		<-m.Only(t).Done // the reply saw the client go
	}
	m := llmtest.New(t, llmtest.Replies(llmtest.Stream(llmtest.Data("x"), llmtest.Stall())))
	m.Release()
	if _, _, got, err := post(t, t.Context(), m.URL(), streamReq); err != nil || got != "data: x\n\n" {
		t.Errorf("released stall: %q, %v", got, err)
	}
}

func TestReplay(t *testing.T) {
	file := filepath.Join(t.TempDir(), "normal.sse")
	rec := "data: {\"a\":1}\r\n\r\n: comment\n\ndata: [DONE]\n\ndata: {\"cut"
	if err := os.WriteFile(file, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := llmtest.SplitEvents(rec), []string{"data: {\"a\":1}\r\n\r\n", ": comment\n\n", "data: [DONE]\n\n", "data: {\"cut"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("SplitEvents = %q, want %q", got, want)
	}
	m := llmtest.New(t, llmtest.Replies(llmtest.Replay(t, file).Truncated()), llmtest.Repeat(llmtest.Replay(t, file)))
	for _, want := range []string{"data: {\"a\":1}\r\n\r\n: comment\n\n", rec} {
		_, _, got, err := post(t, t.Context(), m.URL(), streamReq)
		if err != nil || !bytes.Equal([]byte(got), []byte(want)) {
			t.Errorf("replayed %q, %v; want %q", got, err, want)
		}
	}
}

func TestDeps(t *testing.T) {
	deptest.Check(t, "github.com/agentgw/agentgw/llm/llmtest")
}
