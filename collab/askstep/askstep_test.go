package askstep

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/request"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/collab"
	"github.com/agentgw/agentgw/internal/golden"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/sse"
)

// TestSpecFields: the ask kind's configuration, as lint and a schema read
// it, has every key an ask step takes, each documented.
func TestSpecFields(t *testing.T) {
	spec := New(nil).Spec()
	if spec.Name != "ask" || spec.Doc == "" {
		t.Fatalf("spec %+v", spec)
	}
	var names []string
	for _, f := range spec.Fields() {
		names = append(names, f.Name+":"+f.Type)
		if f.Doc == "" {
			t.Errorf("field %s has no doc", f.Name)
		}
	}
	if got, want := strings.Join(names, " "), "agent:string command:string question:string timeout:duration"; got != want {
		t.Errorf("fields %s, want %s", got, want)
	}
}

// client is an llm client of the helper's upstream m.
func client(t *testing.T, m *llmtest.Model) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: m.URL()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// planAgents: lead's plan asks helper (its model) a question made of the
// user's prompt and replies with the answer; the other agents test
// failures and chains.
const planAgents = `
name: helper
commands:
  - name: default
    messageTemplates:
      - {role: system, template: You review code.}
---
name: lead
commands:
  - name: default
    steps:
      - id: ask
        ask: {agent: helper, question: "Review this: {{ .input.prompt }}", timeout: 1m}
      - id: summary
        dependsOn: [ask]
        reply: "The helper ({{ .steps.ask.result.status }}, {{ len .steps.ask.result.messages }} messages) says: {{ .steps.ask.result.response }}"
  - name: quick
    steps:
      - id: ask
        ask: {agent: helper, timeout: 20ms}
  - name: wrong
    steps:
      - id: ask
        ask: {agent: helper, command: nosuch}
  - name: self
    steps:
      - id: ask
        ask: {agent: lead}
---
name: a
commands:
  - {name: default, steps: [{id: ask, ask: {agent: b}}, {id: out, dependsOn: [ask], reply: "a got: {{ .steps.ask.result.response }}"}]}
---
name: b
commands:
  - {name: default, steps: [{id: ask, ask: {agent: c}}, {id: out, dependsOn: [ask], reply: "b got: {{ .steps.ask.result.response }}"}]}
---
name: c
commands:
  - {name: default, steps: [{id: ask, ask: {agent: d}}, {id: out, dependsOn: [ask], reply: "c got: {{ .steps.ask.result.response }}"}]}
---
name: d
commands:
  - {name: default, reply: "d here"}
`

// newRunner loads planAgents with the ask kind over an Asker with cfg,
// the helper's model answering with c.
func newRunner(t *testing.T, c *llm.Client, cfg collab.Config) *runner.Runner {
	t.Helper()
	asker := collab.New(cfg)
	kinds := program.NewKinds()
	kind := New(asker)
	if err := kinds.Register(kind); err != nil {
		t.Fatal(err)
	}
	agents, diags := program.ParseWith(program.LoadOptions{Kinds: kinds}, "plan.yaml", []byte(planAgents))
	if diags.Errors() > 0 {
		t.Fatalf("agents do not load:\n%s", diags)
	}
	r := runner.NewRunner(program.NewRegistry(agents), runner.RunnerConfig{LLM: c, Kinds: kinds})
	return r
}

// frames runs agent's command with prompt and returns what a plugin
// reads, with a fixed id and time.
func frames(ctx context.Context, t *testing.T, r *runner.Runner, agentName, command, prompt string) []byte {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"agent": agentName, "command": command,
		"contextVariables": []any{map[string]any{"name": "userInputPrompt", "value": prompt}}})
	req, err := request.Decode(body)
	if err != nil {
		t.Fatal(err)
	}
	run, err := r.Prepare(req)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	run.Execute(ctx, emit.NewSSEEmitter(sse.NewWriter(&out, sse.Options{ID: "chatcmpl-7", Model: "m", Created: 1700000000}), "req-1"))
	return out.Bytes()
}

// TestAskInPlan: the plugin sees the helper's progress as lines in the ask
// step's place, then what the plan does with the answer.
func TestAskInPlan(t *testing.T) {
	m := llmtest.New(t, llmtest.Repeat(llmtest.Text("Looks fine.\nOne nit: ", "rename x.")))
	r := newRunner(t, client(t, m), collab.Config{})
	golden.Check(t, "testdata/plan.sse", frames(t.Context(), t, r, "lead", "", "func f(x int)"))
	var asked []string
	for _, req := range m.Requests() {
		asked = append(asked, req.LastMessage().Content)
	}
	if len(asked) != 1 || asked[0] != "Review this: func f(x int)" {
		t.Errorf("the helper's model was asked %q", asked)
	}
}

// TestAskInPlanFailures: a timeout, an error response and an ask of
// itself fail the step with a clear error frame; a timeout's cancel stops
// the helper's model request.
func TestAskInPlanFailures(t *testing.T) {
	m := llmtest.New(t, llmtest.Repeat(llmtest.Reply{Before: []llmtest.Event{llmtest.Stall()}}))
	r := newRunner(t, client(t, m), collab.Config{})
	for _, command := range []string{"quick", "wrong", "self"} {
		t.Run(command, func(t *testing.T) {
			golden.Check(t, "testdata/"+command+".sse", frames(t.Context(), t, r, "lead", command, "hi"))
		})
	}
	m.Ended(t) // the quick ask's cancel ended the helper's model request
}

// TestAskChain: an asked agent's plan can ask further, each answer
// carrying the next, up to the depth limit; past it the innermost ask is
// refused and every ask on the way fails, naming why.
func TestAskChain(t *testing.T) {
	r := newRunner(t, nil, collab.Config{})
	golden.Check(t, "testdata/chain.sse", frames(t.Context(), t, r, "a", "", "hi"))
	deep := newRunner(t, nil, collab.Config{MaxDepth: 2})
	golden.Check(t, "testdata/chain_too_deep.sse", frames(t.Context(), t, deep, "a", "", "hi"))
}

// TestAskUserDisconnects: when the plugin goes away while the helper
// works, the helper's model request ends and the stream ends without an
// error frame.
func TestAskUserDisconnects(t *testing.T) {
	started := llmtest.NewGate() // reached once the first chunk is out; never released
	m := llmtest.New(t, llmtest.Repeat(llmtest.Stream(llmtest.Data(llmtest.TextChunk("working on it\n")), llmtest.Wait(started))))
	r := newRunner(t, client(t, m), collab.Config{})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started.Reached()
		cancel()
	}()
	out := frames(ctx, t, r, "lead", "", "hi")
	m.Ended(t)
	if bytes.Contains(out, []byte("copilot_error")) {
		t.Errorf("an error frame for a client that went away:\n%s", out)
	}
}

// TestCheckAgents: an ask naming an agent the load did not bring is a
// warning at the step; known, remote and templated agents are not.
func TestCheckAgents(t *testing.T) {
	kinds := program.NewKinds()
	kind := New(nil)
	if err := kinds.Register(kind); err != nil {
		t.Fatal(err)
	}
	src := `
name: lead
commands:
  - name: default
    steps:
      - {id: a, ask: {agent: helpr}}
      - {id: b, ask: {agent: far}}
      - {id: c, ask: {agent: helper}}
      - {id: d, ask: {agent: "{{ .input.prompt }}"}}
---
name: helper
commands:
  - {name: default, reply: hi}
`
	agents, diags := program.ParseWith(program.LoadOptions{Kinds: kinds}, "lint.yaml", []byte(src))
	if diags.Errors() > 0 {
		t.Fatalf("agents do not load:\n%s", diags)
	}
	var names []string
	for _, a := range agents {
		names = append(names, a.Name())
	}
	remote := func(name string) (string, bool) { return "http://far", name == "far" }
	ds := kind.CheckAgents(names, remote)
	want := `lint.yaml:6:9: warning: command "default": step "a": ask.agent "helpr": no agent of that name is loaded, so the step fails until one is; did you mean "helper"?` + "\n"
	if ds.String() != want {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", ds, want)
	}
	if again := kind.CheckAgents(names, remote); len(again) != 0 {
		t.Errorf("checked twice: %s", again)
	}
}

// TestCompileErrors: an ask without an agent, or with a negative timeout,
// is a load error; a step timeout shorter than the ask's a warning (the
// step's timeout ends the ask first).
func TestCompileErrors(t *testing.T) {
	kinds := program.NewKinds()
	if err := kinds.Register(New(nil)); err != nil {
		t.Fatal(err)
	}
	src := `
name: lead
commands:
  - name: default
    steps:
      - {id: a, ask: {question: hi}}
      - {id: b, ask: {agent: x, timeout: -1s}}
      - {id: c, timeout: 5s, ask: {agent: x}}
`
	_, diags := program.ParseWith(program.LoadOptions{Kinds: kinds}, "bad.yaml", []byte(src))
	var got []string
	for _, d := range diags {
		got = append(got, d.String())
	}
	want := []string{
		`bad.yaml:6:9: command "default": step "a": ask.agent is required: the agent to ask`,
		`bad.yaml:7:42: agent.commands[0].steps[1].ask.timeout: expected a duration such as 30s or 2m, got "-1s"`,
		`bad.yaml:8:9: warning: command "default": step "c": the step's timeout 5s ends the ask before ask.timeout 30s`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
