package collab

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/tools"
)

// fakeModel is an upstream model platform whose answers each test writes.
type fakeModel struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
}

// newFakeModel serves answer for every chat completion request, after
// recording its body.
func newFakeModel(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, body map[string]any)) *fakeModel {
	t.Helper()
	m := &fakeModel{}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(data, &body)
		m.mu.Lock()
		m.bodies = append(m.bodies, body)
		m.mu.Unlock()
		answer(w, r, body)
	}))
	t.Cleanup(m.srv.Close)
	return m
}

// requests are the bodies the model received.
func (m *fakeModel) requests() []map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]map[string]any(nil), m.bodies...)
}

// streamText answers with one chunk per part, flushed one by one.
func streamText(w http.ResponseWriter, parts ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, p := range parts {
		writeDelta(w, map[string]any{"content": p}, "")
	}
	writeDelta(w, map[string]any{}, "stop")
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func writeDelta(w http.ResponseWriter, delta map[string]any, finish string) {
	choice := map[string]any{"index": 0, "delta": delta}
	if finish != "" {
		choice["finish_reason"] = finish
	}
	data, _ := json.Marshal(map[string]any{"id": "up", "object": "chat.completion.chunk", "choices": []any{choice}})
	fmt.Fprintf(w, "data: %s\n\n", data)
	w.(http.Flusher).Flush()
}

// lastUser is the content of the last user message of a request body.
func lastUser(body map[string]any) string {
	msgs, _ := body["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		if m, _ := msgs[i].(map[string]any); m["role"] == "user" {
			s, _ := m["content"].(string)
			return s
		}
	}
	return ""
}

// testAgents are the agents of most tests: helper asks the model; its
// echo command replies without one; lead calls ask_agent.
const testAgents = `
name: helper
commands:
  - name: default
    messageTemplates:
      - {role: system, template: You help other agents.}
  - name: echo
    reply: "echo: {{ .userInputPrompt }}"
  - name: offer
    reply: "Shall I?"
    actions:
      - action: confirm
        data: {title: Do it, message: "Do {{ .userInputPrompt }}?"}
---
name: lead
tools:
  - name: ask_agent
    description: Ask another agent a question and get its answer.
    runtime: builtin
    entry: ask_agent
    timeout: 1m
    parameters:
      type: object
      properties:
        agent: {type: string}
        question: {type: string}
        command: {type: string}
      required: [agent, question]
commands:
  - name: default
    tools: [ask_agent]
    messageTemplates:
      - {role: system, template: You lead.}
`

// fixedIDs makes ids id-1, id-2, ... and a fixed time, so exchanges can be
// golden.
func fixedIDs(cfg *Config) {
	var mu sync.Mutex
	n := 0
	cfg.NewID = func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("id-%d", n)
	}
	cfg.Now = func() time.Time { return time.Date(2026, 4, 4, 12, 0, 0, 0, time.UTC) }
}

// newTestAsker builds a runner over testAgents (and more) asking m, and
// an Asker over it whose ask_agent tool the agents can call.
func newTestAsker(t *testing.T, m *fakeModel, cfg Config, more ...string) (*Asker, *runner.Runner) {
	t.Helper()
	a := New(cfg)
	tm := tools.NewManager(tools.Config{Builtins: Builtins(a)})
	src := testAgents
	for _, s := range more {
		src += "\n---\n" + s
	}
	agents, diags := runner.ParseWith(runner.LoadOptions{Tools: tm}, "test.yaml", []byte(src))
	if diags.Errors() > 0 {
		t.Fatalf("test agents do not load:\n%s", diags)
	}
	rcfg := runner.RunnerConfig{}
	if m != nil {
		c, err := llm.New(llm.Config{BaseURL: m.srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		rcfg.LLM = c
	}
	r := runner.NewRunner(runner.NewRegistry(agents), rcfg)
	a.SetRunner(r)
	return a, r
}

// types lists the exchange's message types.
func types(msgs []Message) []Type {
	var out []Type
	for _, m := range msgs {
		out = append(out, m.Type)
	}
	return out
}

// texts lists the exchange's progress lines.
func texts(msgs []Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Type == TypeProgress {
			out = append(out, m.Text())
		}
	}
	return out
}
