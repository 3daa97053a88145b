package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/store/sqlitestore"
	"github.com/agentgw/agentgw/tools"
	"github.com/agentgw/agentgw/tools/toolload"
)

const toolAgents = `
name: t
tools:
  - {name: add, description: Adds, runtime: builtin, entry: add,
     parameters: {type: object, properties: {a: {type: number}, b: {type: number}}, required: [a, b]}}
  - {name: fail, description: Fails, runtime: builtin, entry: fail}
  - {name: slow, description: Slow, runtime: builtin, entry: slow, timeout: 50ms}
  - {name: deploy, description: Deploys, runtime: builtin, entry: deploy, permissionLevel: USER_CONSENT, userPrompt: "Deploy to production?",
     parameters: {type: object, properties: {env: {type: string}}}}
  - {name: read_file, description: Reads a file in the IDE, runtime: frontend, userPrompt: "Let the agent read a file?", fallbackBehavior: ABORT,
     parameters: {type: object, properties: {path: {type: string}}}}
commands:
  - name: default
    tools: [add, fail, slow, deploy, read_file]
    messageTemplates:
      - {role: system, template: "You use tools."}
    actions:
      - action: confirm
        data: {title: After, message: the model, command: default}
  - name: careful
    steps:
      - id: first
        reply: "first|"
      - id: deploy
        tool: deploy
        with: {env: prod}
      - id: after
        reply: "after:{{ .steps.deploy.result }}|"
      - id: beside
        reply: "beside|"
    actions:
      - action: confirm
        data: {title: Done, message: the plan, command: default}
  - name: risky
    steps:
      - id: deploy
        tool: deploy
        with: {env: prod}
      - id: broken
        tool: fail
  - name: plan
    steps:
      - id: sum
        tool: add
        dependsOn: [forty]
        with: {a: 2, b: "$state.forty"}
        output: state.sum
      - id: say
        dependsOn: [sum]
        reply: "sum={{ .state.sum }}"
      - id: forty
        set: {forty: 40}
      - id: bad
        dependsOn: [say]
        tool: add
        with: {a: "x", b: 1}
        onError: continue
        output: state.ok || state.err
      - id: why
        dependsOn: [bad]
        reply: " {{ .state.err.message }}"
  - name: sneaky
    steps:
      - id: run
        tool: add
        with: {a: 1, b: 2, exec: "sh -c id"}
        onError: continue
        output: state.ok || state.err
      - id: why
        dependsOn: [run]
        reply: "{{ .state.err.code }} {{ .state.err.message }}"
`

// toolAnswer is the model of the tool tests: the first round asks for the
// tools its scenario (the user's input) names; once it has tool results it
// answers with them.
func toolAnswer(r llmtest.Request) llmtest.Reply {
	last := r.LastMessage()
	if last.Role == "tool" {
		var results []string
		for _, m := range r.Messages {
			if m.Role == "tool" {
				results = append(results, m.Content)
			}
		}
		return llmtest.Text("results: " + strings.Join(results, " | "))
	}
	var calls []llmtest.ToolCall
	switch last.Content {
	case "add":
		calls = []llmtest.ToolCall{{ID: "c1", Name: "add", Arguments: `{"a": 1, "b": 2}`}, {ID: "c2", Name: "add", Arguments: `{"a": 10, "b": 20}`}}
	case "fail":
		calls = []llmtest.ToolCall{{ID: "c1", Name: "fail", Arguments: `{}`}}
	case "slow":
		calls = []llmtest.ToolCall{{ID: "c1", Name: "slow", Arguments: `{}`}}
	case "bad":
		calls = []llmtest.ToolCall{{ID: "c1", Name: "add", Arguments: `{"a": "one"}`}}
	case "unknown":
		calls = []llmtest.ToolCall{{ID: "c1", Name: "nosuch", Arguments: `{}`}}
	case "undeclared":
		calls = []llmtest.ToolCall{{ID: "c1", Name: "add", Arguments: `{"a": 1, "b": 2, "exec": "sh -c id"}`}}
	case "deploy":
		calls = []llmtest.ToolCall{{ID: "c1", Name: "deploy", Arguments: `{"env": "prod"}`}, {ID: "c2", Name: "add", Arguments: `{"a": 1, "b": 1}`}}
	case "read":
		calls = []llmtest.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path": "main.go"}`}}
	default: // "call:a,b" calls the tools a and b
		if names, ok := strings.CutPrefix(last.Content, "call:"); ok {
			for i, name := range strings.Split(names, ",") {
				calls = append(calls, llmtest.ToolCall{ID: fmt.Sprintf("c%d", i+1), Name: name, Arguments: `{"path": "main.go"}`})
			}
		}
	}
	return llmtest.Answer{Text: []string{"let me see. "}, Calls: calls, Finish: "tool_calls"}.Reply()
}

func toolRunner(t *testing.T, st store.Store, more ...string) (*Runner, *llmtest.Model) {
	t.Helper()
	m := llmtest.New(t, llmtest.Respond(toolAnswer))
	c, err := llm.New(llm.Config{BaseURL: m.URL()})
	if err != nil {
		t.Fatal(err)
	}
	tm := tools.NewManager(tools.Config{Builtins: map[string]tools.BuiltinFunc{
		"add": func(_ context.Context, p map[string]any) (any, error) {
			return p["a"].(float64) + p["b"].(float64), nil
		},
		"fail": func(context.Context, map[string]any) (any, error) {
			return nil, errors.New("the disk is full")
		},
		"slow": func(ctx context.Context, _ map[string]any) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
		"deploy": func(context.Context, map[string]any) (any, error) { return "deployed", nil },
	}})
	var files []string
	for i, doc := range append([]string{toolAgents}, more...) {
		files = append(files, writeTemp(t, fmt.Sprintf("t%d.yaml", i), doc))
	}
	agents, diags := program.LoadWith(program.LoadOptions{Kinds: testKinds(), Tools: toolload.Compiler{Manager: tm}}, files...)
	if diags.Errors() > 0 {
		t.Fatalf("tool agents do not load:\n%s", diags)
	}
	cfg := RunnerConfig{LLM: c, Store: st, PauseTTL: time.Minute, Signer: actions.NewSigner([]byte("shared by the replicas"), time.Hour)}
	return NewRunner(program.NewRegistry(agents), cfg), m
}

func promptBody(input string) string {
	return `{"agent":"t","contextVariables":[{"name":"userInputPrompt","value":"` + input + `"},{"name":"userInfo","value":{"id":"40","name":"a","nickname":"A"}}]}`
}

// TestToolLoop: backend tools run (two in one round in parallel), their
// results go back to the model, the user sees a progress line per call and
// never the tool call chunks; failures, timeouts, bad arguments and
// unknown tools reach the model as error results.
func TestToolLoop(t *testing.T) {
	r, m := toolRunner(t, store.NewMemory())
	tests := []struct {
		input string
		want  []string
	}{
		{"add", []string{"> running add", `"result":3`, `"result":30`, `"status":"SUCCESS"`}},
		{"fail", []string{`"status":"ERROR"`, "the disk is full"}},
		{"slow", []string{`"status":"TIMEOUT"`}},
		{"bad", []string{`"code":"INVALID_PARAMETERS"`}},
		{"unknown", []string{`"code":"UNKNOWN_TOOL"`}},
		{"undeclared", []string{`"code":"INVALID_PARAMETERS"`, `parameter \"exec\": not declared by tool add`}},
	}
	for _, tc := range tests {
		t.Run(tc.input, func(t *testing.T) {
			rec, err := runRequest(t, r, promptBody(tc.input))
			if err != nil {
				t.Fatal(err)
			}
			text := rec.Transcript()
			if !strings.HasPrefix(text, "let me see. ") || !strings.Contains(text, "results: ") {
				t.Fatalf("transcript %q", text)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("transcript lacks %q: %q", w, text)
				}
			}
			for _, f := range rec.Frames() {
				if f.Kind == "chunk" && strings.Contains(string(f.Raw), "tool_calls") {
					t.Errorf("a tool call chunk reached the plugin: %s", f.Raw)
				}
				if f.Kind == "error" {
					t.Errorf("error frame %+v", f.Error)
				}
			}
			if last := rec.Frames()[len(rec.Frames())-2]; last.Kind != "action" {
				t.Errorf("the command's actions did not follow the model: %+v", last)
			}
		})
	}
	if tools := m.Requests()[0].Tools; len(tools) != 5 {
		t.Errorf("the model was offered %d tools, want 5", len(tools))
	}
}

// TestToolConsent: a USER_CONSENT tool pauses the run with a confirm;
// accepting runs it and the conversation goes on; dismissing tells the
// model the user declined; a consent cannot be answered twice.
func TestToolConsent(t *testing.T) {
	for _, accepted := range []bool{true, false} {
		t.Run(fmt.Sprint("accepted=", accepted), func(t *testing.T) {
			r, _ := toolRunner(t, store.NewMemory())
			rec, err := runRequest(t, r, promptBody("deploy"))
			if err != nil {
				t.Fatal(err)
			}
			confirm := lastAction(t, rec)
			if confirm.Confirm == nil || !strings.Contains(confirm.Confirm.Message, "Deploy to production?") {
				t.Fatalf("consent confirm %+v", confirm.Confirm)
			}
			if strings.Contains(rec.Transcript(), "results:") {
				t.Fatal("the model went on before the consent")
			}
			body := `{"agent":"t","action":{"action":"confirm","state":` + q(confirm.State) + fmt.Sprintf(`,"accepted":%v}}`, accepted)
			rec, err = runRequest(t, r, body)
			if err != nil {
				t.Fatal(err)
			}
			text := rec.Transcript()
			want := `"result":"deployed"`
			if !accepted {
				want = "the user declined"
			}
			if !strings.Contains(text, want) || !strings.Contains(text, `"result":2`) {
				t.Fatalf("after consent: %q", text)
			}
			if _, err := runRequest(t, r, body); err == nil || !strings.Contains(err.Error(), "no longer waiting") {
				t.Fatalf("answering twice: %v", err)
			}
		})
	}
}

// TestFrontendTool: a frontend tool goes to the IDE as a copilot_tool_call;
// the IDE's toolResults resume the conversation.
func TestFrontendTool(t *testing.T) {
	r, _ := toolRunner(t, store.NewMemory())
	rec, err := runRequest(t, r, promptBody("read"))
	if err != nil {
		t.Fatal(err)
	}
	var call *emit.ToolCallFrame
	for _, f := range rec.Frames() {
		if f.Kind == "toolcall" {
			call = f.ToolCall
		}
	}
	if call == nil || call.Name != "read_file" || call.Parameters["path"] != "main.go" || call.UserPrompt == "" || call.FallbackBehavior != "ABORT" {
		t.Fatalf("tool call frame %+v", call)
	}
	body := `{"agent":"t","toolResults":[{"callId":"` + call.CallID + `","status":"SUCCESS","result":{"content":"package main"}}]}`
	rec, err = runRequest(t, r, body)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rec.Transcript(), "package main") {
		t.Fatalf("after the IDE's result: %q", rec.Transcript())
	}
	if _, err := runRequest(t, r, body); err == nil {
		t.Fatal("the same result resumed twice")
	}
	if _, err := runRequest(t, r, `{"agent":"t","toolResults":[{"callId":"call_nope","status":"SUCCESS"}]}`); err == nil {
		t.Fatal("an unknown call id was accepted")
	}
}

func TestToolStep(t *testing.T) {
	r, _ := toolRunner(t, store.NewMemory())
	rec, err := runRequest(t, r, `{"agent":"t","command":"plan","contextVariables":[{"name":"userInfo","value":{"id":"40","name":"a","nickname":"A"}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.Transcript(); !strings.HasPrefix(got, "sum=42 ") || !strings.Contains(got, "INVALID_PARAMETERS") {
		t.Fatalf("transcript %q", got)
	}
}

// TestToolStepUndeclaredParameter: a plan step's parameters pass the same
// check as a model's: an undeclared name is INVALID_PARAMETERS, the tool
// never runs.
func TestToolStepUndeclaredParameter(t *testing.T) {
	r, _ := toolRunner(t, store.NewMemory())
	rec, err := runRequest(t, r, `{"agent":"t","command":"sneaky","contextVariables":[{"name":"userInfo","value":{"id":"40","name":"a","nickname":"A"}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.Transcript(); !strings.Contains(got, "INVALID_PARAMETERS") || !strings.Contains(got, `parameter "exec": not declared by tool add`) {
		t.Fatalf("transcript %q", got)
	}
}

func TestToolLoadErrors(t *testing.T) {
	tm := tools.NewManager(tools.Config{Builtins: map[string]tools.BuiltinFunc{"x": func(context.Context, map[string]any) (any, error) { return nil, nil }}})
	file := writeTemp(t, "bad.yaml", `
name: bad
tools:
  - {name: ok, description: d, runtime: builtin, entry: x}
  - {name: ok, description: d, runtime: builtin, entry: x}
  - {name: ask, description: d, runtime: builtin, entry: x, permissionLevel: USER_CONSENT}
  - {name: weird, description: d, runtime: bash}
commands:
  - name: default
    tools: [ok, nope]
    messageTemplates: [{role: system, template: s}]
    steps:
      - id: a
        tool: ask
        onError: continue
      - id: b
        llm:
          tools: [ask]
          messageTemplates: [{role: user, template: u}]
      - id: c
        action:
          action: confirm
          data: {title: t, message: m}
          onAccept:
            - id: inner
              tool: ask
  - name: waits
    steps:
      - {id: w, tool: ask}
  - name: calls
    steps:
      - {id: x, call: {command: waits}}
`)
	_, diags := program.LoadWith(program.LoadOptions{Kinds: testKinds(), Tools: toolload.Compiler{Manager: tm}}, file)
	for _, want := range []string{`tool "ok" is defined twice`, `no tool named "nope"`, `tool "weird"`, `step "a": a tool step that asks for consent stops the plan`, `step "b": llm: tool "ask" waits`, `step "inner": tool "ask" waits`, `step "x": call: command "waits" waits for the user or the IDE`} {
		if !strings.Contains(diags.String(), want) {
			t.Errorf("diagnostics lack %q:\n%s", want, diags)
		}
	}
}

// TestDroppedAgentClosesItsTools: an agent left out for its errors
// releases the tools its definition compiled, and only those: the shared
// ones stay open for the agents that load.
func TestDroppedAgentClosesItsTools(t *testing.T) {
	var logs strings.Builder
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	noop := func(context.Context, map[string]any) (any, error) { return nil, nil }
	tm := tools.NewManager(tools.Config{Logger: log, Builtins: map[string]tools.BuiltinFunc{"x": noop}})
	shared, diags := toolload.LoadTools(tm, writeTemp(t, "shared.yaml", "- {name: common, description: d, runtime: builtin, entry: x}\n"))
	if diags.Errors() > 0 {
		t.Fatal(diags)
	}
	_, diags = program.LoadWith(program.LoadOptions{Kinds: testKinds(), Tools: toolload.Compiler{Manager: tm}, Shared: toolload.Shared(shared)}, writeTemp(t, "broken.yaml", `
name: broken
tools:
  - {name: own, description: d, runtime: builtin, entry: x}
commands:
  - name: other
    tools: [own, common]
    messageTemplates: [{role: system, template: s}]
`))
	if diags.Errors() == 0 {
		t.Fatal("the agent without a default command loaded")
	}
	if !strings.Contains(logs.String(), `msg="tool closed" tool=own`) || strings.Contains(logs.String(), "tool=common") {
		t.Fatalf("want own closed and common open; the manager logged:\n%s", logs.String())
	}
}

// TestRequestDefinitionsNeverBringTools: a request-carried definition's
// tools and command tool lists are refused (DEFINITION_NOT_ALLOWED, naming
// the field) before anything compiles; the model is never asked.
func TestRequestDefinitionsNeverBringTools(t *testing.T) {
	up := llmtest.New(t)
	r, _ := testRunner(t, runnerAgents, up, RunnerConfig{AllowRequestDefinitions: true})
	for def, path := range map[string]string{
		`{"name":"v","tools":[{"name":"sh","runtime":"native","entry":"/bin/sh"}],
	  "commands":[{"name":"default","tools":["sh"],"messageTemplates":[{"role":"system","template":"x"}]}]}`: "agentDefinition.tools",
		`{"name":"v","commands":[{"name":"default","tools":["sh"],"messageTemplates":[{"role":"system","template":"x"}]}]}`: "agentDefinition.commands[0].tools",
	} {
		_, err := runRequest(t, r, `{"agent":"v","agentDefinition":`+def+`}`)
		if e, ok := errors.AsType[*apierr.Error](err); !ok || e.Code != apierr.CodeDefinitionNotAllowed || e.Status != 422 || !strings.HasPrefix(e.Message, path+": ") {
			t.Errorf("%s: got %v, want DEFINITION_NOT_ALLOWED naming %s", def, err, path)
		}
	}
	if up.Count() != 0 {
		t.Fatal("the model was asked")
	}
}

// TestFrontendToolResultsChecked: results for calls of another run, or
// unknown calls, are refused before anything resumes; the IDE's
// executionTime reaches the model.
func TestFrontendToolResultsChecked(t *testing.T) {
	r, m := toolRunner(t, store.NewMemory())
	var ids []string
	for range 2 {
		rec, err := runRequest(t, r, promptBody("read"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rec.Frames() {
			if f.Kind == "toolcall" {
				ids = append(ids, f.ToolCall.CallID)
			}
		}
	}
	mixed := `{"agent":"t","toolResults":[{"callId":"` + ids[0] + `","status":"SUCCESS"},{"callId":"` + ids[1] + `","status":"SUCCESS"}]}`
	if _, err := runRequest(t, r, mixed); err == nil || !strings.Contains(err.Error(), "different runs") {
		t.Fatalf("results of two runs in one request: %v", err)
	}
	unknown := `{"agent":"t","toolResults":[{"callId":"` + ids[0] + `","status":"SUCCESS"},{"callId":"call_nope","status":"SUCCESS"}]}`
	if _, err := runRequest(t, r, unknown); err == nil {
		t.Fatal("an unknown call id was accepted beside a known one")
	}
	rec, err := runRequest(t, r, `{"agent":"t","toolResults":[{"callId":"`+ids[0]+`","status":"SUCCESS","result":"ok","executionTime":123}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rec.Transcript(), `"executionTime":123`) {
		t.Fatalf("executionTime lost: %q", rec.Transcript())
	}
	_ = m
}

// TestConsentResumesOnAnotherReplica: two gateways sharing a SQLite store
// and a state secret, nothing else: a run paused by one resumes on the
// other, once.
func TestConsentResumesOnAnotherReplica(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	open := func() store.Store {
		s, err := sqlitestore.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	a, _ := toolRunner(t, open())
	b, _ := toolRunner(t, open())
	rec, err := runRequest(t, a, promptBody("deploy"))
	if err != nil {
		t.Fatal(err)
	}
	confirm := lastAction(t, rec)
	body := `{"agent":"t","action":{"action":"confirm","state":` + q(confirm.State) + `,"accepted":true}}`
	rec, err = runRequest(t, b, body)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rec.Transcript(), `"result":"deployed"`) {
		t.Fatalf("on the other replica: %q", rec.Transcript())
	}
	if _, err := runRequest(t, a, body); err == nil {
		t.Fatal("the first replica resumed the run again")
	}
}

// TestPlanConsentAndFailure: a plan with a step that waits for consent
// and a step that fails reports the failure and asks nothing.
func TestPlanConsentAndFailure(t *testing.T) {
	st := store.NewMemory()
	r, _ := toolRunner(t, st)
	rec, err := runRequest(t, r, `{"agent":"t","command":"risky"}`)
	if err != nil {
		t.Fatal(err)
	}
	var errs []string
	for _, f := range rec.Frames() {
		switch f.Kind {
		case "action":
			t.Fatalf("a failed plan asked for consent: %+v", f)
		case "error":
			errs = append(errs, f.Error.Code+": "+f.Error.Message)
		}
	}
	if len(errs) != 1 || !strings.Contains(errs[0], `step "broken"`) {
		t.Fatalf("errors: %q", errs)
	}
}

// TestCalledCommandCannotWait: a call step into another agent's command
// that asks for consent (a plan's tool step, or its model's tool) fails
// with a clear error; no confirm is sent, since the answer could not reach
// the calling plan.
func TestCalledCommandCannotWait(t *testing.T) {
	r, _ := toolRunner(t, store.NewMemory(), `
name: caller
commands:
  - name: default
    reply: "hello"
  - name: plan
    steps:
      - {id: before, reply: "before|"}
      - {id: deploy, call: {agent: t, command: careful}}
  - name: model
    steps:
      - {id: ask, call: {agent: t}}
`)
	for _, tc := range []struct{ body, want string }{
		{`{"agent":"caller","command":"plan"}`,
			`command "careful" (agent "t") waits for the user's consent in step "deploy", which it cannot do when command "plan" runs it`},
		{`{"agent":"caller","command":"model","contextVariables":[{"name":"userInputPrompt","value":"deploy"}]}`,
			`command "default" (agent "t") waits for the user or the IDE for tool "deploy", which it cannot do when command "model" runs it`},
	} {
		rec, err := runRequest(t, r, tc.body)
		if err != nil {
			t.Fatal(err)
		}
		if e := rec.Err(); e == nil || e.Code != "TOOL_FAILED" || !strings.Contains(e.Message, tc.want) {
			t.Fatalf("%s: error %+v, transcript %q", tc.body, e, rec.Transcript())
		}
		for _, f := range rec.Frames() {
			if f.Kind == "action" || f.Kind == "toolcall" {
				t.Fatalf("%s: a called command asked the user or the IDE: %+v", tc.body, f)
			}
		}
	}
}

// TestPlanConsent: a tool step that needs consent pauses its plan after the
// steps that do not depend on it; accepting runs the tool and the rest of
// the plan without showing the earlier steps again; declining fails it.
func TestPlanConsent(t *testing.T) {
	for _, accepted := range []bool{true, false} {
		t.Run(fmt.Sprint("accepted=", accepted), func(t *testing.T) {
			r, _ := toolRunner(t, store.NewMemory())
			rec, err := runRequest(t, r, `{"agent":"t","command":"careful"}`)
			if err != nil {
				t.Fatal(err)
			}
			if got := rec.Transcript(); got != "first|beside|" {
				t.Fatalf("before the consent: %q", got)
			}
			confirm := lastAction(t, rec)
			if !strings.Contains(confirm.Confirm.Message, `Deploy to production? {"env":"prod"}`) {
				t.Fatalf("consent %+v", confirm.Confirm)
			}
			rec, err = runRequest(t, r, `{"agent":"t","action":{"action":"confirm","state":`+q(confirm.State)+fmt.Sprintf(`,"accepted":%v}}`, accepted))
			if err != nil {
				t.Fatal(err)
			}
			var code string
			if e := rec.Err(); e != nil {
				code = e.Code
			}
			if accepted {
				if got := rec.Transcript(); got != "after:deployed|" || code != "" {
					t.Fatalf("after accepting: %q %s", got, code)
				}
				if a := lastAction(t, rec); a.Confirm.Title != "Done" {
					t.Fatalf("the command's actions did not follow the plan: %+v", a)
				}
			} else if code != "DECLINED" || strings.Contains(rec.Transcript(), "after:") {
				t.Fatalf("after declining: %q %s", rec.Transcript(), code)
			}
		})
	}
}

// TestNewCallIDLikeTools: the runner's call ids (a frontend tool's, a
// consent's) have the shape of the tools' ids: "call_" and 32 hex digits.
func TestNewCallIDLikeTools(t *testing.T) {
	shape := regexp.MustCompile(`^call_[0-9a-f]{32}$`)
	for _, id := range []string{newCallID(), tools.NewCallID()} {
		if !shape.MatchString(id) {
			t.Errorf("call id %q, want call_ and 32 hex digits", id)
		}
	}
	if newCallID() == newCallID() {
		t.Error("two call ids are the same")
	}
}
