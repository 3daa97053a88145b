package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/sse"
)

// askAgents: lead's plan asks helper, whose model answers; lead's model
// may also call ask_agent.
var askAgents = map[string]string{
	"lead.yaml": `name: lead
tools:
  - name: ask_agent
    description: Ask another agent.
    runtime: builtin
    entry: ask_agent
    parameters: {type: object, properties: {agent: {type: string}, question: {type: string}}, required: [agent, question]}
commands:
  - name: default
    steps:
      - id: ask
        ask: {agent: helper, question: "{{ .input.prompt }}"}
      - id: out
        dependsOn: [ask]
        reply: "helper said {{ .steps.ask.result.response }}"
  - name: typo
    steps:
      - {id: ask, ask: {agent: helpr}}
`,
	"helper.yaml": `name: helper
commands:
  - name: default
    messageTemplates:
      - {role: system, template: You help.}
`,
}

// TestServeAsk: the gateway's ask step reaches another of its agents
// through the runner serve built (the Asker gets it after the kinds); in
// forward auth mode the helper's model request carries the plugin's
// credentials, as a call step's would.
func TestServeAsk(t *testing.T) {
	dir := t.TempDir()
	for name, src := range askAgents {
		writeFile(t, dir, name, src)
	}
	up := newFakeUpstream(t, "All ", "good.")
	cfg := testConfig(t, up.URL())
	cfg.Agents = []string{dir}
	base := startGateway(t, cfg, nil)
	req, err := http.NewRequest(http.MethodPost, base+"/agents/lead", strings.NewReader(`{"contextVariables":[{"name":"userInputPrompt","value":"is it fine?"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer platform-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var events []streamEvent
	for rd := sse.NewReader(resp.Body); ; {
		ev, err := rd.Next()
		if err != nil {
			break
		}
		events = append(events, streamEvent{Name: ev.Name, Data: string(ev.Data)})
	}
	if got, want := streamText(t, events), "> helper: All good.\nhelper said All good."; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	reqs := up.Requests()
	if len(reqs) != 1 || reqs[0].Messages[len(reqs[0].Messages)-1].Content != "is it fine?" {
		t.Fatalf("upstream requests %+v", reqs)
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer platform-token" {
		t.Errorf("the helper's model request has Authorization %q", got)
	}
}

// TestLintAsk: an ask naming an agent the gateway did not load is a
// warning with a suggestion; the ask_agent builtin is known.
func TestLintAsk(t *testing.T) {
	dir := t.TempDir()
	for name, src := range askAgents {
		writeFile(t, dir, name, src)
	}
	code, stdout, stderr := runCLI(t, nil, "lint", dir)
	want := filepath.Join(dir, "lead.yaml") + `:18:9: warning: command "typo": step "ask": ask.agent "helpr": no agent of that name is loaded, so the step fails until one is; did you mean "helper"?` + "\n"
	if code != 0 || stdout != want || !strings.HasPrefix(stderr, "2 agents loaded, 0 errors, 1 warnings") {
		t.Errorf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %s", code, stdout, want, stderr)
	}
}
