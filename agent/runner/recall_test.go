package runner

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/contextvars"
)

// fakeRecall answers every recall with one reference per knowledge base,
// naming the query it got.
type fakeRecall struct{ calls []string }

func (f *fakeRecall) Recall(_ context.Context, ids []string, query string, topK int) ([]contextvars.KnowledgeBase, error) {
	f.calls = append(f.calls, strings.Join(ids, ",")+"|"+query+"|"+string(rune('0'+topK)))
	var out []contextvars.KnowledgeBase
	for _, id := range ids {
		out = append(out, contextvars.KnowledgeBase{KnowledgeBaseID: id, References: []contextvars.Reference{{Score: 0.9,
			Chunk: "recalled from " + id, Metadata: contextvars.ReferenceMetadata{FileName: "a.md", SourceType: "doc", Source: id}}}})
	}
	return out, nil
}

const recallAgent = `
name: kb
commands:
  - name: default
    contextVariableCollectionStrategy:
      type: specify
      contextVariables:
        - name: knowledgeBase
          resolverOptions: {knowledgeBaseIds: [docs, code], recallByAgent: true, topK: 3}
        - name: userInputPrompt
    messageTemplates:
      - role: system
        template: "{{ range .knowledgeBase }}[{{ .knowledgeBaseId }}]{{ range .references }} {{ .chunk }};{{ end }}{{ end }}"
`

// TestRecallByAgent: a command whose knowledgeBase asks the agent to recall
// gets the recalled references of its knowledge bases (those the plugin
// sent, when it sent the variable), the plugin's own references of them
// replaced, and the prompt shows them.
func TestRecallByAgent(t *testing.T) {
	up := okModel(t)
	rec := &fakeRecall{}
	r, _ := testRunner(t, recallAgent, up, RunnerConfig{Recall: rec})
	tests := []struct{ name, vars, wantCall, wantSystem string }{
		{"the plugin sent none", `{"name":"userInputPrompt","value":"how to deploy"}`,
			"docs,code|how to deploy|3", "[docs] recalled from docs;[code] recalled from code;"},
		{"the plugin sent one, with its own references", `{"name":"userInputPrompt","value":"how"},{"name":"knowledgeBase","value":[{"knowledgeBaseId":"docs","references":[{"score":1,"chunk":"the plugin's","metadata":{"fileName":"x","sourceType":"doc","source":"s"}}]},{"knowledgeBaseId":"other"}]}`,
			"docs|how|3", "[docs] recalled from docs;"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec.calls = nil
			if _, err := runRequest(t, r, `{"agent":"kb","contextVariables":[`+tc.vars+`]}`); err != nil {
				t.Fatal(err)
			}
			if len(rec.calls) != 1 || rec.calls[0] != tc.wantCall {
				t.Fatalf("recalls %q, want %q", rec.calls, tc.wantCall)
			}
			var sent struct {
				Messages []struct{ Role, Content string }
			}
			_ = json.Unmarshal(up.Last(t).Body, &sent)
			if sent.Messages[0].Content != tc.wantSystem {
				t.Fatalf("system prompt %q, want %q", sent.Messages[0].Content, tc.wantSystem)
			}
		})
	}
}
