package runner

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/apierr"
)

const runnerAgents = `
name: t
commands:
  - name: default
    reply: "Hello, {{ .userInfo.nickname | default \"there\" }}!"
    actions:
      - action: confirm
        data: {title: "Version of {{ .agent }}", message: Shows it, command: version}
      - action: tree
        data:
          treeId: files
          rootPId: "0"
          nodes:
            - {id: root, pId: "0", type: dir, name: "{{ .vcs.branchName | default \"HEAD\" }}", description: "", labels: [a]}
          nodeActions:
            - {nodeType: dir, nodeAction: expand}
  - name: version
    reply: v1
  - name: broken
    reply: "{{ .userInputPrompt.nothing }}"
  - name: badaction
    reply: x
    actions:
      - action: confirm
        data: {title: "{{ .userInputPrompt }}", message: m}
  - name: empty
  - name: model
    messageTemplates:
      - role: system
        template: sys
  - name: needs
    reply: ok
    contextVariableCollectionStrategy:
      contextVariables:
        - name: activeEditor
          required: true
`

func TestRunnerReplyAndActions(t *testing.T) {
	r, _ := testRunner(t, runnerAgents, nil, RunnerConfig{})
	rec, err := runRequest(t, r, `{"agent":"t","contextVariables":[{"name":"userInfo","value":{"id":"1","name":"a","nickname":"Ann"}},{"name":"vcs","value":{"branchName":"main"}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	frames := rec.Frames()
	kinds := []string{}
	for _, f := range frames {
		kinds = append(kinds, f.Kind)
	}
	if got := strings.Join(kinds, ","); got != "text,action,action,end" {
		t.Fatalf("frames %s", got)
	}
	if frames[0].Text != "Hello, Ann!" {
		t.Errorf("text %q", frames[0].Text)
	}
	c := frames[1].Action
	if c.Confirm == nil || c.Confirm.Title != "Version of t" || c.Confirm.Command != "version" || c.State == "" {
		t.Errorf("confirm %+v", c)
	}
	tr := frames[2].Action.Tree
	if tr == nil || tr.Nodes[0].Name != "main" || tr.TreeID != "files" {
		t.Errorf("tree %+v", frames[2].Action)
	}
	claims, err := r.cfg.Signer.Verify(frames[2].Action.State)
	if err != nil || claims.Agent != "t" || claims.Command != "default" || claims.Kind != "tree" || claims.TreeID != "files" {
		t.Errorf("tree state claims %+v, %v", claims, err)
	}
}

func TestRunnerInStreamErrors(t *testing.T) {
	r, _ := testRunner(t, runnerAgents, nil, RunnerConfig{})
	tests := []struct {
		command, input, code string
	}{
		{"broken", "x", apierr.CodeTemplateError},
		{"badaction", "", apierr.CodeActionInvalid},
		{"empty", "", apierr.CodeCommandEmpty},
		{"model", "hi", apierr.CodeUpstreamNotConfigured},
	}
	for _, tc := range tests {
		t.Run(tc.command, func(t *testing.T) {
			body := `{"agent":"t","command":"` + tc.command + `","contextVariables":[{"name":"userInputPrompt","value":"` + tc.input + `"}]}`
			rec, err := runRequest(t, r, body)
			if err != nil {
				t.Fatal(err)
			}
			frames := rec.Frames()
			last, errFrame := frames[len(frames)-1], frames[len(frames)-2]
			if last.Kind != "end" || errFrame.Kind != "error" || errFrame.Error.Code != tc.code {
				t.Fatalf("frames %+v", frames)
			}
			if errFrame.Error.Message == "" || strings.Contains(errFrame.Error.Message, "<no value>") {
				t.Errorf("message %q", errFrame.Error.Message)
			}
		})
	}
}

func TestPrepareErrors(t *testing.T) {
	r, _ := testRunner(t, runnerAgents, nil, RunnerConfig{})
	other := actions.NewSigner([]byte("other"), time.Hour)
	forged, _ := other.Sign(actions.Claims{Agent: "t", Command: "default", Kind: "confirm"})
	foreign, _ := r.cfg.Signer.Sign(actions.Claims{Agent: "elsewhere", Command: "default", Kind: "confirm"})
	treeState, _ := r.cfg.Signer.Sign(actions.Claims{Agent: "t", Command: "default", Kind: "tree", TreeID: "files"})
	expiredSigner := actions.NewSigner([]byte("secret"), time.Hour).WithClock(func() time.Time { return time.Now().Add(-2 * time.Hour) })
	expired, _ := expiredSigner.Sign(actions.Claims{Agent: "t", Command: "default", Kind: "confirm"})
	tests := []struct {
		name, body, code, contains string
	}{
		{"no agent", `{}`, apierr.CodeBadRequest, "no agent named"},
		{"unknown agent", `{"agent":"tt"}`, apierr.CodeAgentNotFound, `did you mean "t"`},
		{"unknown command", `{"agent":"t","command":"versoin"}`, apierr.CodeCommandNotFound, `did you mean "version"`},
		{"required missing", `{"agent":"t","command":"needs"}`, apierr.CodeInvalidContext, `"activeEditor"`},
		{"forged state", `{"agent":"t","action":{"action":"confirm","state":` + q(forged) + `,"accepted":true}}`, apierr.CodeStateInvalid, "invalid"},
		{"expired state", `{"agent":"t","action":{"action":"confirm","state":` + q(expired) + `,"accepted":true}}`, apierr.CodeStateInvalid, "expired"},
		{"foreign state", `{"agent":"t","action":{"action":"confirm","state":` + q(foreign) + `,"accepted":true}}`, apierr.CodeStateInvalid, "another agent"},
		{"kind mismatch", `{"agent":"t","action":{"action":"confirm","state":` + q(treeState) + `,"accepted":true}}`, apierr.CodeStateInvalid, "tree action"},
		{"other tree", `{"agent":"t","action":{"action":"tree","state":` + q(treeState) + `,"treeId":"x","nodeId":"n","nodeAction":"expand"}}`, apierr.CodeStateInvalid, `tree "files"`},
		{"non-string state", `{"agent":"t","action":{"action":"confirm","state":{"a":1},"accepted":true}}`, apierr.CodeStateInvalid, "not one this gateway issued"},
		{"request definition refused", `{"agent":"new","agentDefinition":{"name":"new"}}`, apierr.CodeAgentNotFound, "does not accept"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runRequest(t, r, tc.body)
			var e *apierr.Error
			if !errors.As(err, &e) || e.Code != tc.code || !strings.Contains(e.Error(), tc.contains) {
				t.Fatalf("got %v, want %s containing %q", err, tc.code, tc.contains)
			}
			if e.Status < 400 || e.Status >= 500 {
				t.Errorf("status %d", e.Status)
			}
		})
	}
}

func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestFeedbackAnswers(t *testing.T) {
	r, _ := testRunner(t, runnerAgents, nil, RunnerConfig{})
	confirm, _ := r.cfg.Signer.Sign(actions.Claims{Agent: "t", Command: "version", Kind: "confirm"})
	tree, _ := r.cfg.Signer.Sign(actions.Claims{Agent: "t", Command: "default", Kind: "tree", TreeID: "files"})
	tests := []struct{ body, want string }{
		{`{"agent":"t","action":{"action":"confirm","state":` + q(confirm) + `,"accepted":false}}`, "OK, nothing was done."},
		{`{"agent":"t","action":{"action":"confirm","state":` + q(confirm) + `,"accepted":true}}`, "no follow-up"},
		{`{"agent":"t","action":{"action":"tree","state":` + q(tree) + `,"treeId":"files","nodeId":"root","nodeAction":"expand"}}`, `node "root"`},
	}
	for _, tc := range tests {
		rec, err := runRequest(t, r, tc.body)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(rec.Transcript(), tc.want) {
			t.Errorf("transcript %q, want %q", rec.Transcript(), tc.want)
		}
	}
}

func TestRequestDefinitions(t *testing.T) {
	up := hiModel(t)
	r, _ := testRunner(t, runnerAgents, up, RunnerConfig{AllowRequestDefinitions: true})
	def := `{"name":"visitor","commands":[{"name":"default","reply":"NEVER","actions":[{"action":"confirm","data":{"title":"x","message":"y"}}],
	  "modelConfiguration":{"modelName":"m1","parameters":{"temperature":2},"contextLength":99999999},
	  "messageTemplates":[{"role":"system","template":"from the request: {{ .userInputPrompt }}"}]}]}`
	rec, err := runRequest(t, r, `{"agent":"visitor","agentDefinition":`+def+`,"contextVariables":[{"name":"userInputPrompt","value":"q"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.Transcript(); got != "Hi there" {
		t.Fatalf("transcript %q (request-carried replies ran?)", got)
	}
	for _, f := range rec.Frames() {
		if f.Kind == "action" {
			t.Fatal("a request-carried action was executed")
		}
	}
	body := string(up.Last(t).Body)
	if !strings.Contains(body, "from the request: q") || strings.Contains(body, "temperature") || !strings.Contains(body, `"model":"m1"`) {
		t.Errorf("upstream body %s", body)
	}
	// Steps may run tools, git, hand-offs and other agents: refused.
	_, err = runRequest(t, r, `{"agent":"v3","agentDefinition":{"commands":[{"name":"default","steps":[{"id":"s","reply":"NEVER FROM A STEP"}]}]}}`)
	if e, ok := errors.AsType[*apierr.Error](err); !ok || e.Code != apierr.CodeDefinitionNotAllowed || !strings.HasPrefix(e.Message, "agentDefinition.commands[0].steps: ") {
		t.Errorf("request-carried steps: %v", err)
	}
	if _, err := runRequest(t, r, `{"agent":"visitor","agentDefinition":{"name":"other","commands":[]}}`); err == nil {
		t.Error("a definition naming another agent was accepted")
	}
	if _, err := runRequest(t, r, `{"agent":"v2","agentDefinition":{"commands":[{"name":"default","messageTemplates":[{"role":"system","template":"{{ .x"}]}]}}`); err == nil || !strings.Contains(err.Error(), "agentDefinition is invalid") {
		t.Errorf("a bad request definition: %v", err)
	}
	// The registry's own agents win over a request's copy.
	rec, err = runRequest(t, r, `{"agent":"t","command":"version","agentDefinition":{"name":"t","commands":[{"name":"default","messageTemplates":[{"role":"system","template":"x"}]}]}}`)
	if err != nil || rec.Transcript() != "v1" {
		t.Errorf("registry agent overridden: %v %q", err, rec.Transcript())
	}
}

func TestRequestDefinitionTemplatesRestricted(t *testing.T) {
	r, _ := testRunner(t, runnerAgents, hiModel(t), RunnerConfig{AllowRequestDefinitions: true})
	def := `{"commands":[{"name":"default","messageTemplates":[{"role":"system","template":"{{ define \"x\" }}{{ template \"x\" . }}{{ end }}{{ template \"x\" . }}"}]}]}`
	_, err := runRequest(t, r, `{"agent":"evil","agentDefinition":`+def+`}`)
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code != apierr.CodeBadRequest || !strings.Contains(e.Message, "not allowed") {
		t.Fatalf("a recursive request template was accepted: %v", err)
	}
}
