package main

import (
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// chunkID is a chunk's id.
var chunkID = regexp.MustCompile(`"id":"(chatcmpl-[^"]+)"`)

// farAgent runs on gateway B; gateway A knows it as a remote agent.
const farAgent = `name: far
handoffs: [{type: NOTIFICATION}]
commands:
  - name: default
    reply: "far away: {{ .userInputPrompt }}"
    actions:
      - action: confirm
        data: {title: Again, message: once more}
`

// TestRemoteAgent: gateway A forwards a remote agent's requests to
// gateway B, where the agent runs: B's answer reaches the plugin under A's
// id and end; B's button, re-signed by A, comes back to A and goes on to
// B with B's own state; A keeps the conversation (B never sees the
// contextId); and a hand-off to the remote agent is DELIVERED by A and run
// by B.
func TestRemoteAgent(t *testing.T) {
	dirB := t.TempDir()
	writeFile(t, dirB, "agents/far.yaml", farAgent)
	cfgB := testConfig(t, "")
	cfgB.Agents = []string{filepath.Join(dirB, "agents")}
	b := startGateway(t, cfgB, nil)

	dirA := t.TempDir()
	writeFile(t, dirA, "agents/far.yaml", "name: far\nservice: {endpoint: \""+b+"\"}\ncommands: [{name: default}]\n")
	writeFile(t, dirA, "agents/lead.yaml", `name: lead
commands:
  - name: default
    steps:
      - {id: q, ask: {agent: far, question: "are you there?"}}
      - {id: say, dependsOn: [q], reply: "far said: {{ .steps.q.result.response }}"}
`)
	cfgA := testConfig(t, "")
	cfgA.Agents = []string{filepath.Join(dirA, "agents")}
	a := startGateway(t, cfgA, nil)

	got := ask(t, a+"/agents/far", `{"contextId":"conv-far","contextVariables":[{"name":"userInputPrompt","value":"hi"},{"name":"userInfo","value":{"id":"ada"}}]}`)
	if e := got.errorFrame(); e != nil || got.text != "far away: hi" {
		t.Fatalf("A answered %q, error %+v", got.text, e)
	}
	confirm := got.only(t)
	if confirm.Action != "confirm" || confirm.Data.Title != "Again" || !strings.HasPrefix(string(confirm.State), `"v1.`) {
		t.Fatalf("the remote's confirm as A sends it: %+v state %s", confirm, confirm.State)
	}
	ids := map[string]bool{}
	for _, ev := range got.events {
		if m := chunkID.FindStringSubmatch(ev.Data); m != nil {
			ids[m[1]] = true
		}
	}
	if len(ids) != 1 {
		t.Errorf("the chunks carry ids %v, want one: A's", ids)
	}
	clicked := ask(t, a+"/agents/far", `{"action":{"action":"confirm","state":`+string(confirm.State)+`,"accepted":true}}`)
	if e := clicked.errorFrame(); e != nil || clicked.text != "Noted. This action has no follow-up configured." {
		t.Fatalf("the click, answered by B through A: %q, error %+v", clicked.text, e)
	}
	var conv struct {
		Messages []struct{ Role, Content string }
	}
	jsonCall(t, "GET", a+"/contexts/conv-far", "", &conv, "X-Agentgw-User", "ada")
	if len(conv.Messages) != 2 || conv.Messages[0].Content != "hi" || conv.Messages[1].Content != "far away: hi" {
		t.Errorf("A's conversation: %+v", conv.Messages)
	}
	if code := jsonCall(t, "GET", b+"/contexts/conv-far", "", nil, "X-Agentgw-User", "ada"); code != http.StatusNotFound {
		t.Errorf("B knows the conversation: %d", code)
	}

	// An ask of the remote agent goes through A's runner, which forwards it.
	asked := ask(t, a+"/agents/lead", `{}`)
	if e := asked.errorFrame(); e != nil || asked.text != "> far: far away: are you there?\nfar said: far away: are you there?" {
		t.Errorf("lead asked far: %q, error %+v", asked.text, e)
	}

	const note = `{"metadata":{"message_id":"7f1f0a52-9a5e-4b8e-8f00-000000000fa1","timestamp":"2026-01-02T03:04:05Z",` +
		`"protocol_version":"1.0.0","sender_id":"ci","recipient_id":"far","task_id":"task-far","priority":"LOW"},` +
		`"context":{"workflow_state":"CI","previous_actions":[]},"payload":{"handoff_type":"NOTIFICATION",` +
		`"data":{"event_type":"build","message":"green"}},"instructions":{}}`
	var st handoffStatus
	if code := jsonCall(t, "POST", a+"/handoffs", note, &st); code != http.StatusAccepted {
		t.Fatalf("POST A /handoffs = %d %+v", code, st)
	}
	if m := waitTask(t, a, "task-far", 1)[0]; m.Status != "DELIVERED" {
		t.Fatalf("A: %+v", m)
	}
	if m := waitTask(t, b, "task-far", 1)[0]; m.Status != "COMPLETED" || !strings.HasPrefix(m.Result.Text, "far away: NOTIFICATION hand-off from ci") {
		t.Fatalf("B: %+v", m)
	}
}

// TestRemoteAgentToken: a remote agent's gateway with inbound auth gets
// the token its definition's service.tokenEnv names; without one it
// refuses, and the plugin sees the refusal as the remote's error.
func TestRemoteAgentToken(t *testing.T) {
	dirB := t.TempDir()
	writeFile(t, dirB, "agents/far.yaml", farAgent)
	cfgB := testConfig(t, "")
	cfgB.Agents = []string{filepath.Join(dirB, "agents")}
	b := startGateway(t, cfgB, map[string]string{"AGENTGW_TOKENS": "token-of-b"})

	dirA := t.TempDir()
	writeFile(t, dirA, "agents/far.yaml", "name: far\nservice: {endpoint: \""+b+"\", tokenEnv: FAR_TOKEN}\ncommands: [{name: default}]\n")
	writeFile(t, dirA, "agents/bare.yaml", "name: bare\nservice: {endpoint: \""+b+"/agents/far\"}\ncommands: [{name: default}]\n")
	cfgA := testConfig(t, "")
	cfgA.Agents = []string{filepath.Join(dirA, "agents")}
	a := startGateway(t, cfgA, map[string]string{"FAR_TOKEN": "token-of-b"})

	got := ask(t, a+"/agents/far", `{"contextVariables":[{"name":"userInputPrompt","value":"hi"}]}`)
	if e := got.errorFrame(); e != nil || got.text != "far away: hi" {
		t.Fatalf("with the token: %q, error %+v", got.text, e)
	}
	refused := ask(t, a+"/agents/bare", `{"contextVariables":[{"name":"userInputPrompt","value":"hi"}]}`)
	if e := refused.errorFrame(); e == nil || e.ErrorCode != "UNAUTHORIZED" || strings.Contains(e.Message, "token-of-b") {
		t.Fatalf("without the token: %q, error %+v", refused.text, e)
	}
}
