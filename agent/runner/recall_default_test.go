package runner

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/prompt"
	"github.com/agentgw/agentgw/agent/stage"
	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/knowledge/kb"
	"github.com/agentgw/agentgw/knowledge/recallstage"
)

// pastedRecallAgent is an agent as the platform's console exports it:
// recallByAgent, and templates that never mention knowledgeBase.
const pastedRecallAgent = `{"name": "pasted", "version": "1.0.0", "type": "proxy", "description": "d",
 "commands": [{"name": "default", "description": "d",
   "messageTemplates": [{"role": "system", "template": "You are a world-class programmer"}],
   "contextVariableCollectionStrategy": {"type": "specify", "contextVariables": [
     {"name": "userInputPrompt"},
     {"name": "knowledgeBase", "resolveOptions": {"knowledgeBaseIds": ["docs"], "recallByAgent": true}}]}}]}
`

// scoredRecall answers every recall with refs, for each knowledge base.
type scoredRecall struct{ refs []contextvars.Reference }

func (s scoredRecall) Recall(_ context.Context, ids []string, _ string, _ int) ([]contextvars.KnowledgeBase, error) {
	var out []contextvars.KnowledgeBase
	for _, id := range ids {
		out = append(out, contextvars.KnowledgeBase{KnowledgeBaseID: id, References: s.refs})
	}
	return out, nil
}

func lines(a, b int) (*int, *int) { return &a, &b }

// recallStages are the request stages of a gateway with knowledge bases:
// the recall stage over rec.
func recallStages(t *testing.T, rec recallstage.Recaller) *stage.Registry {
	t.Helper()
	r, err := stage.NewRegistry(recallstage.New(rec))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRecallPlacedByDefault: the references of a recallByAgent command
// whose templates never place them reach the model as a system message
// right after the command's system templates (issue 25 item 4: they were
// recalled and dropped). The upstream request, byte for byte.
func TestRecallPlacedByDefault(t *testing.T) {
	up := okModel(t)
	s1, e1 := lines(3, 7)
	rec := scoredRecall{refs: []contextvars.Reference{
		{Score: 0.4, Chunk: "Nightly at two.", Metadata: contextvars.ReferenceMetadata{FileName: "ops.md", SourceType: "doc", Source: "/srv/docs/ops.md"}},
		{Score: 0.9, Chunk: "func parse() {}", Metadata: contextvars.ReferenceMetadata{FileName: "server/parse.go", SourceType: "code",
			Source: "github.com/org/proj/server/parse.go", StartPos: s1, EndPos: e1}},
	}}
	r, _ := testRunner(t, pastedRecallAgent, up, RunnerConfig{Stages: recallStages(t, rec), ReferencesPrompt: kb.PromptText})
	if _, err := runRequest(t, r, `{"agent":"pasted","model":"m","contextVariables":[{"name":"userInputPrompt","value":"how do we parse?"}]}`); err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","messages":[{"role":"system","content":"You are a world-class programmer"},` +
		`{"role":"system","content":"References from the knowledge bases, best first:\n\n` +
		`[docs] server/parse.go:3-7 (github.com/org/proj/server/parse.go)\nfunc parse() {}\n\n` +
		`[docs] ops.md (/srv/docs/ops.md)\nNightly at two."},` +
		`{"role":"user","content":"how do we parse?"}],"stream":true}`
	if got := string(up.Last(t).Body); got != want {
		t.Errorf("the upstream request:\n%s\nwant\n%s", got, want)
	}

	// A template that mentions knowledgeBase places them itself: no
	// default message.
	placed := strings.Replace(pastedRecallAgent, `"You are a world-class programmer"`, `"{{ len .knowledgeBase }} bases"`, 1)
	r, _ = testRunner(t, placed, up, RunnerConfig{Stages: recallStages(t, rec), ReferencesPrompt: kb.PromptText})
	if _, err := runRequest(t, r, `{"agent":"pasted","model":"m","contextVariables":[{"name":"userInputPrompt","value":"q"}]}`); err != nil {
		t.Fatal(err)
	}
	if got, want := string(up.Last(t).Body), `{"model":"m","messages":[{"role":"system","content":"1 bases"},{"role":"user","content":"q"}],"stream":true}`; got != want {
		t.Errorf("with a template placing them:\n%s\nwant\n%s", got, want)
	}
}

// TestRecallDefaultCutFirst: over the model's budget, the references
// placed by default are what is cut first, lowest score first (docs/protocol.md
// §9), before the package files the user template renders.
func TestRecallDefaultCutFirst(t *testing.T) {
	up := okModel(t)
	big := func(word string) string { return strings.Repeat(word+" ", 150) } // ~190 tokens
	rec := scoredRecall{refs: []contextvars.Reference{
		{Score: 0.2, Chunk: big("low"), Metadata: contextvars.ReferenceMetadata{FileName: "low.md", SourceType: "doc"}},
		{Score: 0.8, Chunk: big("high"), Metadata: contextvars.ReferenceMetadata{FileName: "high.md", SourceType: "doc"}},
	}}
	agentYAML := `
name: budgeted
commands:
  - name: default
    contextVariableCollectionStrategy:
      type: specify
      contextVariables:
        - name: userInputPrompt
        - name: packageFiles
          resolverOptions: {maximumNumber: 2}
        - name: knowledgeBase
          resolverOptions: {knowledgeBaseIds: [docs], recallByAgent: true}
    messageTemplates:
      - role: system
        template: "Be brief."
      - role: user
        template: "{{ range .packageFiles }}{{ .filepath }}: {{ .content }}\n{{ end }}{{ .userInputPrompt }}"
`
	r, logs := testRunner(t, agentYAML, up, RunnerConfig{Stages: recallStages(t, rec), ReferencesPrompt: kb.PromptText,
		Budget: prompt.Budget{DefaultContextLength: 300, ReplyReserve: 1}})
	body := `{"agent":"budgeted","model":"m","contextVariables":[{"name":"userInputPrompt","value":"q"},` +
		`{"name":"packageFiles","value":[{"filepath":"go.mod","content":"module a"},{"filepath":"package.json","content":"{}"}]}]}`
	if _, err := runRequest(t, r, body); err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","messages":[{"role":"system","content":"Be brief."},` +
		`{"role":"system","content":"References from the knowledge bases, best first:\n\n[docs] high.md\n` + strings.ReplaceAll(big("high"), "\n", `\n`) + `"},` +
		`{"role":"user","content":"go.mod: module a\npackage.json: {}\nq"}],"stream":true}`
	if got := string(up.Last(t).Body); got != want {
		t.Errorf("the upstream request:\n%s\nwant\n%s", got, want)
	}
	var cut struct {
		Msg string
		Cut []string
	}
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "prompt over budget") {
			_ = json.Unmarshal([]byte(l), &cut)
		}
	}
	if len(cut.Cut) != 1 || !strings.HasPrefix(cut.Cut[0], "knowledgeBase: dropped 1 reference with score <= 0.2 ") {
		t.Errorf("the cut log line: %+v\n%s", cut, logs)
	}
}
