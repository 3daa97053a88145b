package recallstage_test

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
	r, _ := testRunner(t, recallAgent, up, rec)
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

// pastedRecallAgent is an agent as the platform's console exports it:
// recallByAgent, and templates that never mention knowledgeBase.
const pastedRecallAgent = `{"name": "pasted", "version": "1.0.0", "type": "proxy", "description": "d",
 "commands": [{"name": "default", "description": "d",
   "messageTemplates": [{"role": "system", "template": "You are a world-class programmer"}],
   "contextVariableCollectionStrategy": {"type": "specify", "contextVariables": [
     {"name": "userInputPrompt"},
     {"name": "knowledgeBase", "resolveOptions": {"knowledgeBaseIds": ["docs"], "recallByAgent": true}}]}}]}
`

// TestRecallNothingToRecallLogged: recallByAgent with no knowledgeBaseIds
// and a request that names no knowledge base recalls nothing, and the
// request's log says so (it said nothing); naming none of the command's
// ids is logged too.
func TestRecallNothingToRecallLogged(t *testing.T) {
	noIDs := strings.Replace(pastedRecallAgent, `"knowledgeBaseIds": ["docs"], `, "", 1)
	tests := []struct{ name, agent, vars, want string }{
		{"no ids anywhere", noIDs, `{"name":"userInputPrompt","value":"q"}`,
			`"level":"WARN","msg":"recallByAgent: nothing recalled: the command lists no knowledgeBaseIds and the request's knowledgeBase variable names none","request_id":"","agent":"pasted","command":"default","knowledgeBaseIds":null,"sent":null}`},
		{"none of the command's", pastedRecallAgent, `{"name":"userInputPrompt","value":"q"},{"name":"knowledgeBase","value":[{"knowledgeBaseId":"other"}]}`,
			`"level":"WARN","msg":"recallByAgent: nothing recalled: the request's knowledgeBase variable names none of the command's knowledgeBaseIds","request_id":"","agent":"pasted","command":"default","knowledgeBaseIds":["docs"],"sent":null}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			up := okModel(t)
			rec := &fakeRecall{}
			r, logs := testRunner(t, tc.agent, up, rec)
			if _, err := runRequest(t, r, `{"agent":"pasted","contextVariables":[`+tc.vars+`]}`); err != nil {
				t.Fatal(err)
			}
			if len(rec.calls) != 0 {
				t.Errorf("recalled %q", rec.calls)
			}
			var line string
			for _, l := range strings.Split(logs.String(), "\n") {
				if strings.Contains(l, "nothing recalled") {
					line = l
				}
			}
			if _, rest, _ := strings.Cut(line, `","level"`); `"level"`+rest != tc.want {
				t.Errorf("the log line:\n%s\nwant it to end\n%s", line, tc.want)
			}
		})
	}
}
