package runner

import (
	"context"
	"slices"
	"testing"

	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/request"
	"github.com/agentgw/agentgw/configs"
	"github.com/agentgw/agentgw/llm"
)

// TestFastPathCoversExamples: the example agents' templates all take the
// fast path, so the optimisation applies where it matters.
func TestFastPathCoversExamples(t *testing.T) {
	agents, _ := loadFSAll(configs.FS, configs.AgentsDir)
	n := 0
	for _, a := range agents {
		for name, c := range a.Commands {
			ts := c.Templates()
			if c.Reply != nil {
				ts = append(ts, c.Reply)
			}
			for _, tp := range ts {
				n++
				if !tp.Fast() {
					t.Errorf("%s/%s: a template does not take the fast path: %s", a.Name(), name, tp.Root)
				}
			}
		}
	}
	if n < 5 {
		t.Fatalf("only %d templates checked", n)
	}
}

// TestPromptDataMatchesMaps: every command of the example agents and of the
// benchmark agent renders the same prompt from promptData, field by field,
// as from the template data built whole, for a request with every variable.
func TestPromptDataMatchesMaps(t *testing.T) {
	agents, _ := loadFSAll(configs.FS, configs.AgentsDir)
	bench, diags := loadAll("../../bench/agents")
	if diags.Errors() > 0 {
		t.Fatal(diags)
	}
	agents = append(agents, bench...)
	body := []byte(`{"contextVariables":[` +
		`{"name":"activeEditor","value":{"filePath":"/src/a/main.go","language":"go","content":"package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n",` +
		`"cursorOffset":14,"startLine":3,"startColumn":1,"endLine":3,"endColumn":14,` +
		`"selectedRanges":[{"content":"func main() {","startLine":3,"startColumn":1,"endLine":3,"endColumn":14}],` +
		`"visibleRange":{"content":"package main","startLine":1,"startColumn":1,"endLine":1,"endColumn":13}}},` +
		`{"name":"userInputPrompt","value":"what does it print?"},{"name":"userInfo","value":{"id":"u1","name":"Ann","nickname":"ann"}},` +
		`{"name":"vcs","value":{"type":"git","branchName":"main","remotes":["origin"]}},` +
		`{"name":"knowledgeBase","value":[{"knowledgeBaseId":"kb","references":[{"score":0.5,"chunk":"c","metadata":{"fileName":"f"}}]}]},` +
		`{"name":"globalPrompts","value":[{"role":"system","content":"be brief"}]},` +
		`{"name":"packageFiles","value":[{"filepath":"go.mod","content":"module a"}]},{"name":"custom","value":{"k":"v"}}],` +
		`"messages":[{"role":"user","content":"earlier"},{"role":"assistant","content":"answer"}]}`)
	r := NewRunner(program.NewRegistry(agents), RunnerConfig{})
	n := 0
	for _, a := range agents {
		for _, name := range a.CommandNames() {
			req, err := request.Decode(body)
			if err != nil {
				t.Fatal(err)
			}
			req.Agent, req.Command = a.Name(), name
			run, err := r.Prepare(req)
			if err != nil || !run.cmd.HasPrompt() {
				continue
			}
			lazy, lerr := run.renderPrompt(context.Background(), promptData{run})
			whole, werr := run.renderPrompt(context.Background(), run.templateMap())
			if (lerr == nil) != (werr == nil) || !slices.EqualFunc(lazy, whole, func(x, y llm.Message) bool {
				return x.Role == y.Role && x.Content == y.Content
			}) {
				t.Errorf("%s/%s: field by field %v (%v), whole %v (%v)", a.Name(), name, lazy, lerr, whole, werr)
			}
			n++
		}
	}
	if n < 5 {
		t.Fatalf("only %d commands with prompts were compared", n)
	}
}
