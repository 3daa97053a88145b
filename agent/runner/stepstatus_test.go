package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/golden"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/tools"
	"github.com/agentgw/agentgw/tools/toolload"
)

// statusAgents has, for each way a step can end badly, a command whose
// step stops the plan (onError fail) and a "_status" twin whose step goes
// on (onError continue) to a step that shows its status.
const statusSteps = `
tool_step_timeout: {tool: patient, timeout: 50ms}
tool_own_timeout: {tool: slow}
tool_fails: {tool: fail}
llm_timeout: {timeout: 50ms, llm: {messageTemplates: [{role: user, template: stall}]}}
llm_stream_timeout: {timeout: 50ms, llm: {stream: true, messageTemplates: [{role: user, template: stall}]}}
call_timeout: {timeout: 50ms, call: {command: stalls}}
git_fails: {git: {op: status}}
gate_never_fills: {with: {p: "$state.profile && $state.perms"}, reply: never}
`

// statusAgents builds the agent of statusSteps.
func statusAgents() string {
	var b strings.Builder
	b.WriteString(`name: s
tools:
  - {name: slow, description: Slow, runtime: builtin, entry: slow, timeout: 50ms}
  - {name: patient, description: Slow with a long timeout, runtime: builtin, entry: slow, timeout: 1m}
  - {name: fail, description: Fails, runtime: builtin, entry: fail}
commands:
  - name: default
    reply: x
  - name: stalls
    messageTemplates: [{role: user, template: stall}]
`)
	for _, line := range strings.Split(strings.TrimSpace(statusSteps), "\n") {
		name, step, _ := strings.Cut(line, ": ")
		fmt.Fprintf(&b, "  - name: %s\n    steps:\n      - {id: s, %s\n", name, step[1:])
		fmt.Fprintf(&b, "  - name: %s_status\n    steps:\n      - {id: s, onError: continue, %s\n", name, step[1:])
		b.WriteString("      - {id: show, dependsOn: [s], reply: \"{{ .steps.s.status }}\"}\n")
	}
	return b.String()
}

// statusRunner is a runner over statusAgents with the plan upstream (whose
// "stall" never answers) and builtin tools that wait or fail.
func statusRunner(t *testing.T) *Runner {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: planModel(t).URL()})
	if err != nil {
		t.Fatal(err)
	}
	tm := tools.NewManager(tools.Config{Builtins: map[string]tools.BuiltinFunc{
		"fail": func(context.Context, map[string]any) (any, error) { return nil, errors.New("the disk is full") },
		"slow": func(ctx context.Context, _ map[string]any) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}})
	agents, diags := program.LoadWith(program.LoadOptions{Kinds: testKinds(), Tools: toolload.Compiler{Manager: tm}}, writeTemp(t, "s.yaml", statusAgents()))
	if diags.Errors() > 0 {
		t.Fatalf("status agents do not load:\n%s", diags)
	}
	return NewRunner(program.NewRegistry(agents), RunnerConfig{LLM: c})
}

// TestStepErrorFollowsStatus: for every step kind the error code of a step
// that stops its plan follows the status the same step shows with onError
// continue: TIMEOUT is STEP_TIMEOUT (a tool step over its own or its
// tool's timeout said TOOL_FAILED), SKIPPED for a gate that never filled
// is STEP_NOT_READY (the plan ended without a word), FAILED is the kind's
// own code.
func TestStepErrorFollowsStatus(t *testing.T) {
	t.Parallel()
	r := statusRunner(t)
	tests := []struct {
		command, status, code, message string
	}{
		{"tool_step_timeout", "TIMEOUT", apierr.CodeStepTimeout, `step "s" did not finish within its timeout`},
		{"tool_own_timeout", "TIMEOUT", apierr.CodeStepTimeout, `step "s" did not finish within its timeout`},
		{"tool_fails", "FAILED", apierr.CodeToolFailed, `step "s": tool "fail": TOOL_FAILED: the disk is full`},
		{"llm_timeout", "TIMEOUT", apierr.CodeStepTimeout, `step "s" did not finish within its timeout`},
		{"llm_stream_timeout", "TIMEOUT", apierr.CodeStepTimeout, `step "s" did not finish within its timeout`},
		{"call_timeout", "TIMEOUT", apierr.CodeStepTimeout, `step "s" did not finish within its timeout`},
		{"git_fails", "FAILED", "REPOSITORIES_NOT_CONFIGURED", ""},
		{"gate_never_fills", "SKIPPED", apierr.CodeStepNotReady,
			`step "s" never ran: its inputs wait for references no step wrote: with.p needs state.profile, state.perms`},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			t.Parallel()
			rec, err := runRequest(t, r, `{"agent":"s","command":"`+tt.command+`"}`)
			if err != nil {
				t.Fatal(err)
			}
			e := rec.Err()
			if e == nil || e.Code != tt.code || (tt.message != "" && e.Message != tt.message) {
				t.Errorf("error %v, want %s: %s", e, tt.code, tt.message)
			}
			rec, err = runRequest(t, r, `{"agent":"s","command":"`+tt.command+`_status"}`)
			if err != nil {
				t.Fatal(err)
			}
			if e := rec.Err(); e != nil || rec.Transcript() != tt.status {
				t.Errorf("with onError continue: %q, error %v; want %s", rec.Transcript(), e, tt.status)
			}
		})
	}
}

// gateAgent is seed 002's dashboard: render waits for a profile and the
// permissions, and no step writes the permissions.
const gateAgent = `
name: dash
commands:
  - name: default
    steps:
      - id: profile
        set: {userProfile: {name: Ann}}
      - id: hello
        dependsOn: [profile]
        reply: "Hello {{ .state.userProfile.name }}. "
      - id: renderDashboard
        with: {permissions: "†state.userProfile && †state.permissions"}
        reply: "{{ .with.permissions }}"
`

// TestGateNeverFillsFrames: a && gate that never fills ends the answer
// with an error frame naming the step and the missing reference, and a
// final chunk that says so (the stream ended after "Hello Ann." as if
// complete); the exact frames are in the golden file.
func TestGateNeverFillsFrames(t *testing.T) {
	r, _ := testRunner(t, gateAgent, nil, RunnerConfig{})
	golden.Check(t, "testdata/frames/gate_never_fills.sse", streamFrames(t, r, `{"agent":"dash"}`, "dash", "req-gate"))
}

// TestGateWaitsThroughConsent: a gate that waits for what a tool step
// behind a consent writes is not a gate that never fills: the plan pauses
// for the consent without an error, and the gated step runs once the user
// accepted.
func TestGateWaitsThroughConsent(t *testing.T) {
	r, _ := toolRunner(t, store.NewMemory(), `
name: g
tools:
  - {name: deploy, description: Deploys, runtime: builtin, entry: deploy, permissionLevel: USER_CONSENT, userPrompt: "Deploy?"}
commands:
  - name: default
    steps:
      - id: deploy
        tool: deploy
        output: state.deployed
      - id: report
        with: {what: "$state.deployed && $state.deployed"}
        reply: "report:{{ .with.what }}"
`)
	rec, err := runRequest(t, r, `{"agent":"g"}`)
	if err != nil {
		t.Fatal(err)
	}
	if e := rec.Err(); e != nil || rec.Transcript() != "" {
		t.Fatalf("before the consent: %q, error %v", rec.Transcript(), e)
	}
	confirm := lastAction(t, rec)
	rec, err = runRequest(t, r, `{"agent":"g","action":{"action":"confirm","state":`+q(confirm.State)+`,"accepted":true}}`)
	if err != nil {
		t.Fatal(err)
	}
	if e := rec.Err(); e != nil || rec.Transcript() != "report:deployed" {
		t.Fatalf("after accepting: %q, error %v", rec.Transcript(), e)
	}
}
