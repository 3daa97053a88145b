package runner_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/request"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/agent/tmpl"
)

// shout is a step kind written outside the runner, as a plug-in would be:
// `shout: {text: ..., times: n}` makes the text upper case, repeated.
type shout struct{}

type shoutConfig struct {
	Text  string `yaml:"text" doc:"what to shout: a reference, a template or a literal"`
	Times int    `yaml:"times" doc:"how many times" default:"1"`
}

type shoutStep struct {
	text  *tmpl.Value
	times int
}

func (shout) Spec() agent.KindSpec {
	return agent.KindSpec{Name: "shout", Doc: "shouts a text", Config: &shoutConfig{}}
}

func (shout) Compile(c stepkind.Compiler, config any) stepkind.Step {
	cfg := config.(*shoutConfig)
	if cfg.Times < 0 {
		c.Errorf(c.Step().Pos, "%s: shout.times must not be negative", c.Where())
		return nil
	}
	return &shoutStep{text: c.String(c.Where()+": shout.text", cfg.Text, c.Step().Pos), times: max(cfg.Times, 1)}
}

func (s *shoutStep) Run(_ context.Context, r stepkind.Run) (any, error) {
	text, err := r.String(s.text)
	if err != nil {
		return nil, err
	}
	return strings.Repeat(strings.ToUpper(text), s.times), nil
}

func (s *shoutStep) Reads() ([]*tmpl.Value, []*tmpl.Template) { return []*tmpl.Value{s.text}, nil }

const shoutAgent = `
name: loud
commands:
  - name: default
    steps:
      - id: name
        set: {who: world}
      - id: loud
        dependsOn: [name]
        shout: {text: "hello {{ .state.who }} ", times: 2}
      - id: say
        reply: "{{ .steps.loud.result }}|"
`

// TestRegisteredKind registers a kind from outside the runner (one Register
// line) and runs a plan that uses it after a built-in one: its step reads
// the state, its result reaches the next step's template.
func TestRegisteredKind(t *testing.T) {
	kinds := program.NewKinds()
	if err := kinds.Register(shout{}); err != nil {
		t.Fatal(err)
	}
	agents, diags := program.ParseWith(program.LoadOptions{Kinds: kinds}, "loud.yaml", []byte(shoutAgent))
	if diags.Errors() > 0 {
		t.Fatalf("the agent does not load:\n%s", diags)
	}
	r := runner.NewRunner(program.NewRegistry(agents), runner.RunnerConfig{Kinds: kinds})
	req, err := request.Decode([]byte(`{"agent":"loud","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	run, err := r.Prepare(req)
	if err != nil {
		t.Fatal(err)
	}
	rec := &emit.Recorder{}
	run.Execute(t.Context(), rec)
	if got, want := rec.Transcript(), "HELLO WORLD HELLO WORLD |"; got != want {
		t.Errorf("transcript %q, want %q", got, want)
	}
}

// TestRegisteredKindSpec checks what the registry makes of a kind's spec:
// its fields for lint and schemas, its key known to the decoder (with
// positions and suggestions), its compile errors, and refusals to register.
func TestRegisteredKindSpec(t *testing.T) {
	kinds := program.NewKinds()
	if err := kinds.Register(shout{}); err != nil {
		t.Fatal(err)
	}
	fields := shout{}.Spec().Fields()
	want := []agent.Field{
		{Name: "text", Type: "string", Doc: "what to shout: a reference, a template or a literal"},
		{Name: "times", Type: "integer", Doc: "how many times", Default: "1"},
	}
	if !reflect.DeepEqual(fields, want) {
		t.Errorf("fields %+v, want %+v", fields, want)
	}
	if got, want := strings.Join(kinds.KindNames(), ","), "reply,llm,action,set,call,shout"; got != want {
		t.Errorf("kinds %s, want %s", got, want)
	}
	_, diags := program.ParseWith(program.LoadOptions{Kinds: kinds}, "bad.yaml", []byte(`
name: bad
commands:
  - name: default
    steps:
      - id: a
        shout: {txt: x, times: -1}
      - id: b
        shuot: {text: x}
`))
	for _, want := range []string{
		`bad.yaml:7:17: agent.commands[0].steps[0].shout: unknown field "txt"; did you mean "text"?`,
		`bad.yaml:6:9: command "default": step "a": shout.times must not be negative`,
		`bad.yaml:9:9: agent.commands[0].steps[1]: unknown field "shuot"; did you mean "shout"?`,
		`bad.yaml:8:9: command "default": step "b": a step needs one kind: reply, llm, action, set, call or shout`,
	} {
		if !strings.Contains(diags.String(), want) {
			t.Errorf("diagnostics lack %q:\n%s", want, diags)
		}
	}
	if err := kinds.Register(shout{}); err == nil || !strings.Contains(err.Error(), `"shout": already registered`) {
		t.Errorf("registering twice: %v", err)
	}
}
