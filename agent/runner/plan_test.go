package runner

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/store"
)

const planAgents = `
name: p
commands:
  - name: default
    reply: "start|"
    steps:
      - id: slow
        llm:
          stream: true
          messageTemplates: [{role: user, template: "slow"}]
      - id: fast
        reply: "fast|"
      - id: last
        dependsOn: [slow, fast]
        reply: "last:{{ .steps.slow.status }}/{{ .dependencies.fast.result }}"
  - name: refs
    steps:
      - id: a
        set: {user.name: "$context.userInfo.nickname || $context.userInfo.name", count: 3}
      - id: b
        dependsOn: [a]
        with: {who: "$state.nobody || $state.user.name", n: "$state.count", text: "hi {{ .state.user.name }}"}
        reply: "{{ .with.who }} {{ .with.n }} {{ .with.text }}"
  - name: outputs
    steps:
      - id: ok
        reply: "x"
        output: state.first && state.second
      - id: bad
        git: {op: status}
        output: state.good || state.failed
        onError: continue
      - id: show
        dependsOn: [ok, bad]
        reply: "{{ .state.first }}{{ .state.second }} {{ .state.failed.status }} {{ if .state.good }}good{{ end }}"
  - name: cond
    steps:
      - id: a
        reply: "a"
      - id: b
        when: dependencies.a.status == 'COMPLETED' AND dependencies.a.result == 'a'
        reply: "b"
      - id: c
        when: NOT contains(dependencies.a.result, 'a')
        reply: "c"
      - id: d
        dependsOn: [c]
        reply: "[{{ .steps.c.status }}]"
  - name: fails
    steps:
      - id: boom
        git: {op: status}
      - id: never
        dependsOn: [boom]
        reply: "never"
  - name: nomodel
    messageTemplates: [{role: system, template: "x"}]
  - name: timeout
    steps:
      - id: stall
        timeout: 100ms
        llm:
          messageTemplates: [{role: user, template: "stall"}]
  - name: plantimeout
    timeout: 100ms
    steps:
      - id: stall
        llm:
          messageTemplates: [{role: user, template: "stall"}]
  - name: retry
    steps:
      - id: flaky
        retry: {limit: 2, backoff: 1ms}
        llm:
          messageTemplates: [{role: user, template: "flaky"}]
      - id: say
        dependsOn: [flaky]
        reply: "got {{ .steps.flaky.result }} after {{ .steps.flaky.attempts }}"
  - name: json
    steps:
      - id: j
        llm:
          format: json
          messageTemplates: [{role: user, template: "json"}]
        output: state.answer
      - id: say
        dependsOn: [j]
        reply: "{{ .state.answer.n }} {{ index .state.answer.list 1 }}"
  - name: calls
    steps:
      - id: quiet
        call: {command: version}
      - id: loud
        call: {command: version, stream: true}
      - id: say
        dependsOn: [quiet, loud]
        reply: "|captured {{ .steps.quiet.result }}"
  - name: version
    reply: "v1"
`

// planModel answers by the prompt's last message: "slow" answers after a
// pause, "stall" never answers, "flaky" fails twice then answers, "json"
// answers JSON, anything else echoes.
func planModel(t *testing.T) *llmtest.Model {
	var flaky atomic.Int32
	return llmtest.New(t, llmtest.Respond(func(r llmtest.Request) llmtest.Reply {
		prompt := r.LastMessage().Content
		switch prompt {
		case "slow":
			return llmtest.Text("slow|").Delay(30 * time.Millisecond)
		case "stall":
			return llmtest.Reply{Before: []llmtest.Event{llmtest.Stall()}}
		case "flaky":
			if flaky.Add(1) <= 2 {
				return llmtest.Error(http.StatusServiceUnavailable, "busy")
			}
			return llmtest.Text("ok")
		case "json":
			return llmtest.Text("```json\n{\"n\": 3, \"list\": [\"a\", \"b\"]}\n```")
		}
		return llmtest.Text("echo:" + prompt)
	}))
}

func planRunner(t *testing.T, yaml string, cfg RunnerConfig) *Runner {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: planModel(t).URL()})
	if err != nil {
		t.Fatal(err)
	}
	cfg.LLM = c
	r, _ := testRunner(t, yaml, nil, cfg)
	return r
}

func TestPlans(t *testing.T) {
	r := planRunner(t, planAgents, RunnerConfig{})
	tests := []struct {
		command, want, errCode string
	}{
		{"default", "start|slow|fast|last:COMPLETED/fast|", ""},
		{"refs", "Ann 3 hi Ann", ""},
		{"outputs", "xxx FAILED ", ""},
		{"cond", "ab[SKIPPED]", ""},
		{"fails", "", "REPOSITORIES_NOT_CONFIGURED"},
		{"timeout", "", apierr.CodeStepTimeout},
		{"plantimeout", "", apierr.CodePlanTimeout},
		{"retry", "got ok after 3", ""},
		{"json", "3 b", ""},
		{"calls", "v1|captured v1", ""},
	}
	for _, tc := range tests {
		t.Run(tc.command, func(t *testing.T) {
			rec, err := runRequest(t, r, `{"agent":"p","command":"`+tc.command+`","contextVariables":[{"name":"userInfo","value":{"id":"1","name":"ann","nickname":"Ann"}}]}`)
			if err != nil {
				t.Fatal(err)
			}
			var code string
			if e := rec.Err(); e != nil {
				code = e.Code
			}
			if code != tc.errCode {
				t.Fatalf("error code %q, want %q; frames %+v", code, tc.errCode, rec.Frames())
			}
			if got := rec.Transcript(); got != tc.want {
				t.Errorf("transcript %q, want %q", got, tc.want)
			}
		})
	}
}

const feedbackAgents = `
name: f
commands:
  - name: default
    steps:
      - id: remember
        set: {secret: "kept in the store", files: ["a.go", "b.go"]}
      - id: ask
        dependsOn: [remember]
        action:
          action: confirm
          data: {title: "Show {{ len .state.files }} files", message: m}
          onAccept:
            - id: say
              reply: "accepted: {{ .state.secret }}, {{ .input.action.accepted }}"
            - id: tree
              action:
                action: tree
                data:
                  treeId: t1
                  rootPId: "0"
                  nodes:
                    - {id: d, pId: "0", type: dir, name: "{{ index .state.files 0 }}"}
                  nodeActions:
                    - {nodeType: dir, nodeAction: expand}
                onExpand:
                  - id: kids
                    action:
                      action: tree
                      data:
                        treeId: t1
                        rootPId: "{{ .input.action.nodeId }}"
                        nodes:
                          - {id: "{{ .input.action.nodeId }}/x", pId: "{{ .input.action.nodeId }}", type: file, name: "x under {{ .input.action.node.name }}"}
          onDismiss: bye
  - name: bye
    reply: "bye {{ .input.action.accepted }}"
`

// TestFeedbackHandlers: a confirm's onAccept runs inline steps that see the
// state the plan saved; onDismiss runs a command; a tree's onExpand answers
// with the expanded node's children under the same treeId.
func TestFeedbackHandlers(t *testing.T) {
	r := planRunner(t, feedbackAgents, RunnerConfig{Store: store.NewMemory()})
	rec, err := runRequest(t, r, `{"agent":"f"}`)
	if err != nil {
		t.Fatal(err)
	}
	confirm := lastAction(t, rec)
	if confirm.Confirm == nil || confirm.Confirm.Title != "Show 2 files" {
		t.Fatalf("confirm %+v", confirm)
	}
	rec, err = runRequest(t, r, `{"agent":"f","action":{"action":"confirm","state":`+q(confirm.State)+`,"accepted":true}}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.Transcript(); got != "accepted: kept in the store, true" {
		t.Fatalf("onAccept transcript %q", got)
	}
	tree := lastAction(t, rec)
	if tree.Tree == nil || tree.Tree.Nodes[0].Name != "a.go" {
		t.Fatalf("tree %+v", tree)
	}
	rec, err = runRequest(t, r, `{"agent":"f","action":{"action":"tree","state":`+q(tree.State)+`,"treeId":"t1","nodeId":"d","nodeAction":"expand","node":{"id":"d","name":"a.go"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	kids := lastAction(t, rec)
	if kids.Tree == nil || kids.Tree.TreeID != "t1" || kids.Tree.RootPID != "d" || kids.Tree.Nodes[0].Name != "x under a.go" || len(kids.Tree.NodeActions) != 0 {
		t.Fatalf("children %+v", kids.Tree)
	}
	// The batch extends the tree: expanding one of its nodes runs the
	// tree's onExpand again.
	rec, err = runRequest(t, r, `{"agent":"f","action":{"action":"tree","state":`+q(kids.State)+`,"treeId":"t1","nodeId":"d/x","nodeAction":"expand","node":{"id":"d/x","name":"x"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	if grand := lastAction(t, rec); grand.Tree.RootPID != "d/x" || grand.Tree.Nodes[0].Name != "x under x" {
		t.Fatalf("grandchildren %+v", grand.Tree)
	}
	rec, err = runRequest(t, r, `{"agent":"f","action":{"action":"confirm","state":`+q(confirm.State)+`,"accepted":false}}`)
	if err != nil || rec.Transcript() != "bye false" {
		t.Fatalf("onDismiss: %v %q", err, rec.Transcript())
	}
}

func lastAction(t *testing.T, rec *emit.Recorder) *actions.Action {
	t.Helper()
	var a *actions.Action
	for _, f := range rec.Frames() {
		if f.Kind == "error" {
			t.Fatalf("error frame: %+v", f.Error)
		}
		if f.Kind == "action" {
			a = f.Action
		}
	}
	if a == nil {
		t.Fatalf("no action in %+v", rec.Frames())
	}
	return a
}

func TestPlanLoadErrors(t *testing.T) {
	_, diags := parseAll("bad.yaml", []byte(`
name: bad
commands:
  - name: default
    steps:
      - id: a
        dependsOn: [b]
        reply: a
      - id: b
        dependsOn: [a]
        reply: b
      - id: c
        dependsOn: [zz]
        reply: c
      - id: d
        reply: d
        set: {x: 1}
      - id: e
        when: "dependencies.a.status =="
        reply: e
      - id: f
        with: {x: "$nowhere.y"}
        output: "context.x"
        reply: f
      - id: g
      - id: h
        onError: explode
        git: {op: blame}
      - id: i
        action:
          action: confirm
          data: {title: t, message: m}
          onExpand: bye
          onAccept: nosuch
`))
	for _, want := range []string{"a -> b -> a", `"zz"`, "one kind", "when:", "output:", "needs one kind", `"nowhere" is not a root`, `onError "explode"`, `git.op "blame"`, `"onExpand"`, `no command "nosuch"`} {
		if !strings.Contains(diags.String(), want) {
			t.Errorf("diagnostics lack %q:\n%s", want, diags)
		}
	}
	for _, d := range diags {
		if d.Pos.Line == 0 {
			t.Errorf("diagnostic without a line: %s", d)
		}
	}
}

// TestPlanFailureBranchWithoutOnError: seed 002's output branch "†data.user.verified ||
// †data.user.failed" goes on into the failure branch when the step fails, without onError continue:
// the next step's model request carries what the failure branch holds, and the run ends normally.
func TestPlanFailureBranchWithoutOnError(t *testing.T) {
	up := llmtest.New(t, llmtest.Repeat(llmtest.Text("told")))
	r, _ := testRunner(t, `
name: v
commands:
  - name: default
    steps:
      - id: verify
        git: {op: status}
        output: "†state.user.verified || †state.user.failed"
      - id: explain
        dependsOn: [verify]
        when: state.user.failed.status == 'FAILED'
        llm:
          stream: true
          messageTemplates: [{role: user, template: "{{ .steps.verify.status }} {{ .state.user.failed.status }}: {{ .state.user.failed.message }}"}]
`, up, RunnerConfig{})
	rec, err := runRequest(t, r, `{"agent":"v","command":"default"}`)
	if err != nil {
		t.Fatal(err)
	}
	if e := rec.Err(); e != nil {
		t.Fatalf("the run failed: %+v", e)
	}
	if got := rec.Transcript(); got != "told" {
		t.Errorf("transcript %q, want %q", got, "told")
	}
	var body struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(up.Last(t).Body, &body); err != nil {
		t.Fatalf("upstream request %s: %v", up.Last(t).Body, err)
	}
	want := []map[string]any{{"role": "user", "content": "FAILED FAILED: REPOSITORIES_NOT_CONFIGURED: git: this gateway has no repositories configured (git.repositories in its config)"}}
	if !reflect.DeepEqual(body.Messages, want) {
		t.Errorf("upstream messages %v, want %v", body.Messages, want)
	}
}
