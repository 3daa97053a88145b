package collab

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/tools"
	"github.com/agentgw/agentgw/tools/toolload"
)

// lastUser is the content of the last user message of a request.
func lastUser(r llmtest.Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
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

// newTestAsker builds a runner over testAgents (and more) asking m, whose
// agents' ask_agent tool asks through an Asker with cfg, and returns an
// Asker with cfg for the test's own asks, which come from no run: it has
// the runner as its Config.Local (the tools' Asker is built before the
// runner and asks through the runner of the run calling it).
func newTestAsker(t *testing.T, m *llmtest.Model, cfg Config, more ...string) (*Asker, *runner.Runner) {
	t.Helper()
	a := New(cfg)
	tm := tools.NewManager(tools.Config{Builtins: Builtins(a)})
	src := testAgents
	for _, s := range more {
		src += "\n---\n" + s
	}
	agents, diags := program.ParseWith(program.LoadOptions{Tools: toolload.Compiler{Manager: tm}}, "test.yaml", []byte(src))
	if diags.Errors() > 0 {
		t.Fatalf("test agents do not load:\n%s", diags)
	}
	rcfg := runner.RunnerConfig{}
	if m != nil {
		c, err := llm.New(llm.Config{BaseURL: m.URL()})
		if err != nil {
			t.Fatal(err)
		}
		rcfg.LLM = c
	}
	r := runner.NewRunner(program.NewRegistry(agents), rcfg)
	cfg.Local = r
	return New(cfg), r
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
