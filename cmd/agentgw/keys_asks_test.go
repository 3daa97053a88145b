package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/sse"
)

// scopeAskAgents: lead and helper are in the attacking key's scope; vault
// (a model agent of this gateway) and far (a remote one) are not. Every
// way lead has of running another agent is tried: an ask step, the
// ask_agent tool (the model chooses the agent: a prompt steers it), a
// chain of asks (helper asks on), a call step; courier asks vault when it
// handles a hand-off. ok is the control.
var scopeAskAgents = map[string]string{
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
      - {id: ask, ask: {agent: vault, question: "the secret?"}}
  - name: far
    steps:
      - {id: ask, ask: {agent: far, question: "the secret?"}}
  - name: chain
    steps:
      - {id: ask, ask: {agent: helper, command: relay, question: "the secret?"}}
  - name: call
    steps:
      - {id: c, call: {agent: vault}}
  - name: tool
    messageTemplates:
      - {role: system, template: You lead.}
    tools: [ask_agent]
  - name: ok
    steps:
      - {id: ask, ask: {agent: helper, question: "fine?"}}
      - {id: out, dependsOn: [ask], reply: "helper said {{ .steps.ask.result.response }}"}
`,
	"helper.yaml": `name: helper
commands:
  - name: default
    messageTemplates:
      - {role: system, template: You help.}
  - name: relay
    steps:
      - {id: ask, ask: {agent: vault, question: "{{ .input.prompt }}"}}
`,
	"courier.yaml": `name: courier
handoffs: [{type: NOTIFICATION}]
commands:
  - name: default
    steps:
      - {id: ask, ask: {agent: vault, question: "{{ .handoff.payload.data.message }}"}}
`,
	"vault.yaml": `name: vault
commands:
  - name: default
    messageTemplates:
      - {role: system, template: You are the vault.}
`,
}

// What varies between runs of a stream (chunk ids, times, request ids,
// a tool's time), normalized so that the rest compares byte for byte.
var (
	chunkIDRe   = regexp.MustCompile(`"id":"chatcmpl-[^"]+"`)
	createdRe   = regexp.MustCompile(`"created":[0-9]+`)
	requestIDRe = regexp.MustCompile(`"requestId":"[^"]+"`)
	execTimeRe  = regexp.MustCompile(`"executionTime":[0-9]+`)
)

// rawStream posts body to url with cred and returns the whole SSE body,
// its varying parts normalized.
func rawStream(t *testing.T, url, cred, body string) (int, string) {
	t.Helper()
	code, out := keyCall(t, http.MethodPost, url, cred, body)
	out = chunkIDRe.ReplaceAllString(out, `"id":"ID"`)
	out = createdRe.ReplaceAllString(out, `"created":0`)
	out = requestIDRe.ReplaceAllString(out, `"requestId":"RID"`)
	return code, execTimeRe.ReplaceAllString(out, `"executionTime":0`)
}

// TestScopedKeyAsks (the attack): a key limited to lead and helper must
// not reach vault, or the remote far, through lead: not by an ask step,
// not by steering lead's model to call ask_agent on vault, not through
// helper asking on, not by a call step. Each is refused FORBIDDEN as the
// ask's (or call's) failure, and vault's model and far's gateway get no
// request. The same key's ask of helper, in scope, runs; the admin
// token's ask of vault runs.
func TestScopedKeyAsks(t *testing.T) {
	dir := t.TempDir()
	for name, src := range scopeAskAgents {
		writeFile(t, dir, "agents/"+name, src)
	}
	var farHits atomic.Int64
	far := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		farHits.Add(1)
		w.WriteHeader(http.StatusTeapot)
	}))
	t.Cleanup(far.Close)
	writeFile(t, dir, "agents/far.yaml", "name: far\nservice: {endpoint: \""+far.URL+"\"}\ncommands: [{name: default}]\n")

	var vaultAsked atomic.Int64
	up := llmtest.New(t, llmtest.Respond(func(r llmtest.Request) llmtest.Reply {
		switch sys := r.Messages[0].Content; {
		case sys == "You are the vault.":
			vaultAsked.Add(1)
			return llmtest.Text("the secret is 42")
		case sys == "You lead." && r.LastMessage().Role == "tool":
			return llmtest.Text("I could not ask.")
		case sys == "You lead.":
			return llmtest.Calls(llmtest.ToolCall{ID: "call_1", Name: "ask_agent", Arguments: `{"agent":"vault","question":"the secret?"}`})
		}
		return llmtest.Text("All good.")
	}))
	cfg := testConfig(t, up.URL())
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	cfg.Server.Keys = true
	base := startGateway(t, cfg, map[string]string{"AGENTGW_ADMIN_TOKENS": "admin-token"})
	var key keyJSON
	if code := jsonCall(t, "POST", base+"/keys", `{"user":"mallory","agents":["lead","helper","courier"]}`, &key,
		"Authorization", "Bearer admin-token"); code != http.StatusCreated {
		t.Fatalf("POST /keys: %d", code)
	}

	refused := func(step, msg string) string {
		return "event: copilot_error\n" +
			`data: {"errorCode":"FORBIDDEN","message":"step \"` + step + `\": ` + msg + `","recoverable":false,` +
			`"suggestedAction":"GET /agents lists what this key may call; ask an admin to widen the key's agents","requestId":"RID","source":"client"}` + "\n\n" +
			`data: {"id":"ID","object":"chat.completion.chunk","created":0,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{},"finish_reason":"error"}]}` + "\n\n" +
			"data: [DONE]\n\n"
	}
	for _, tc := range []struct{ command, want string }{
		{"default", refused("ask", `ask: this key may not ask command \"default\" of agent \"vault\"`)},
		{"far", refused("ask", `ask: this key may not ask command \"default\" of agent \"far\"`)},
		{"chain", refused("ask", `ask: agent \"helper\" answered with an error: FORBIDDEN: step \"ask\": ask: this key may not ask command \"default\" of agent \"vault\"`)},
		{"call", refused("c", `this key may not call command \"default\" of agent \"vault\"`)},
	} {
		t.Run(tc.command, func(t *testing.T) {
			code, got := rawStream(t, base+"/agents/lead", key.Secret, `{"command":"`+tc.command+`"}`)
			if code != http.StatusOK || got != tc.want {
				t.Errorf("%d\n%s\nwant\n%s", code, got, tc.want)
			}
		})
	}

	// The model steered to ask vault: the tool's result is FORBIDDEN, and
	// the model goes on without vault's answer.
	t.Run("ask_agent", func(t *testing.T) {
		code, body := keyCall(t, http.MethodPost, base+"/agents/lead", key.Secret,
			`{"command":"tool","contextVariables":[{"name":"userInputPrompt","value":"ask the vault for its secret"}]}`)
		events := sseEvents(t, body)
		if code != http.StatusOK || streamText(t, events) != "\n> running ask_agent {\"agent\":\"vault\",\"question\":\"the secret?\"}\nI could not ask." {
			t.Errorf("%d text %q\n%s", code, streamText(t, events), body)
		}
		result := lastToolResult(up)
		want := `{"callId":"call_1","status":"ERROR","error":{"code":"FORBIDDEN","message":"this key may not ask command \"default\" of agent \"vault\""},"executionTime":0}`
		if got := execTimeRe.ReplaceAllString(result, `"executionTime":0`); got != want {
			t.Errorf("the tool result the model got:\n%s\nwant\n%s", got, want)
		}
	})

	// A hand-off the key may send, to courier, whose run asks vault: the
	// run fails FORBIDDEN, the message is DEAD (no retry).
	t.Run("handoff", func(t *testing.T) {
		auth := []string{"Authorization", "Bearer " + key.Secret}
		var st handoffStatus
		if code := jsonCall(t, "POST", base+"/handoffs", scopedHandoff(1, "courier", "the secret?"), &st, auth...); code != http.StatusAccepted {
			t.Fatalf("POST /handoffs to courier: %d %+v", code, st)
		}
		for deadline := time.Now().Add(20 * time.Second); (st.Status == "QUEUED" || st.Status == "RUNNING" || st.Status == "") && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			jsonCall(t, "GET", base+"/handoffs/"+st.MessageID, "", &st, auth...)
		}
		want := `agent "courier", command "default": FORBIDDEN: step "ask": ask: this key may not ask command "default" of agent "vault"`
		if st.Status != "DEAD" || st.Error != want {
			t.Errorf("the hand-off whose run asks vault: %s %q\nwant DEAD %q", st.Status, st.Error, want)
		}
	})

	if n := vaultAsked.Load(); n != 0 {
		t.Errorf("vault's model was asked %d times through a key without vault", n)
	}
	if n := farHits.Load(); n != 0 {
		t.Errorf("far's gateway got %d requests through a key without far", n)
	}

	// In scope: lead asks helper.
	code, body := keyCall(t, http.MethodPost, base+"/agents/lead", key.Secret, `{"command":"ok"}`)
	if text := streamText(t, sseEvents(t, body)); code != http.StatusOK || text != "> helper: All good.\nhelper said All good." {
		t.Errorf("the ask in scope: %d %q", code, text)
	}
	// Without a key's scope (the admin token), lead reaches vault.
	code, body = keyCall(t, http.MethodPost, base+"/agents/lead", "admin-token", `{}`)
	if events := sseEvents(t, body); code != http.StatusOK || len(events) == 0 || vaultAsked.Load() != 1 {
		t.Errorf("the admin's ask of vault: %d, vault asked %d times\n%s", code, vaultAsked.Load(), body)
	}
}

// sseEvents parses an SSE body.
func sseEvents(t *testing.T, body string) []streamEvent {
	t.Helper()
	var events []streamEvent
	for rd := sse.NewReader(strings.NewReader(body)); ; {
		ev, err := rd.Next()
		if err != nil {
			return events
		}
		events = append(events, streamEvent{Name: ev.Name, Data: string(ev.Data)})
	}
}
