package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/llm/llmtest"
)

// The agents of the carry tests: greeter answers a turn of the
// conversation; desk looks, then hands the issue to support with the
// seed's instructions; support has no template reading .handoff, so the
// message's default prompt is its user input.
const (
	greeterAgent = `name: greeter
commands:
  - name: default
    reply: "hi there"
`
	deskAgent = `name: desk
commands:
  - name: default
    steps:
      - id: look
        reply: "looked at {{ .userInputPrompt }}"
      - id: escalate
        dependsOn: [look]
        handoff:
          to: support
          type: NOTIFICATION
          priority: HIGH
          nextSteps: call back
          workflowState: CUSTOMER_ISSUE_ESCALATED
          requiredActions: [DIAGNOSE_ROOT_CAUSE, COMMUNICATE_SOLUTION_TO_CUSTOMER]
          successCriteria: Root cause identified.
          constraints: {time_limit: PT30S}
        with: {event_type: outage, message: "{{ .userInputPrompt }}"}
`
	supportAgent = `name: support
handoffs:
  - {type: NOTIFICATION, command: default}
commands:
  - name: default
    messageTemplates:
      - {role: system, template: You support.}
`
)

// stamps and uuids are what the carry tests replace to compare exactly.
var (
	stamps = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)
	uuids  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
)

// normal replaces times with T and UUIDs with ID.
func normal(s string) string {
	return uuids.ReplaceAllString(stamps.ReplaceAllString(s, "T"), "ID")
}

// TestHandoffCarriesTheRun: a handoff step inside a conversation sends
// the seed's whole message: previous_actions from the plan's completed
// steps, user_interaction_history from the conversation's stored turns and
// the turn being answered, and the step's required_actions,
// success_criteria and constraints. The receiver's model gets them all in
// its default prompt.
func TestHandoffCarriesTheRun(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "agents/greeter.yaml", greeterAgent)
	writeFile(t, dir, "agents/desk.yaml", deskAgent)
	writeFile(t, dir, "agents/support.yaml", supportAgent)
	up := newFakeUpstream(t, "on it")
	cfg := testConfig(t, up.URL())
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	base := startGateway(t, cfg, nil)

	if got := ask(t, base+"/agents/greeter", `{"contextId":"conv-c","contextVariables":[{"name":"userInputPrompt","value":"hello"}]}`); got.text != "hi there" {
		t.Fatalf("greeter answered %q", got.text)
	}
	got := ask(t, base+"/agents/desk", `{"contextId":"conv-c","contextVariables":[{"name":"userInputPrompt","value":"the VPN drops"}]}`)
	if e := got.errorFrame(); e != nil {
		t.Fatalf("desk: %+v", e)
	}
	task := strings.TrimSuffix(strings.Fields(strings.SplitN(got.text, "(task ", 2)[1])[0], ",")
	msgs := waitTask(t, base, task, 1)
	var st struct {
		Message json.RawMessage `json:"message"`
	}
	jsonCall(t, "GET", base+"/handoffs/"+msgs[0].MessageID, "", &st)
	want := `{"metadata":{"message_id":"ID","timestamp":"T","protocol_version":"1.0.0","sender_id":"desk","recipient_id":"support",` +
		`"task_id":"ID","priority":"HIGH"},` +
		`"context":{"workflow_state":"CUSTOMER_ISSUE_ESCALATED","previous_actions":[{"action_type":"STEP_COMPLETED","details":"step look: \"looked at the VPN drops\"","step_id":"look","timestamp":"T"}],` +
		`"user_interaction_history":[{"content":"hello","sender":"User","timestamp":"T","type":"CHAT_MESSAGE"},` +
		`{"content":"hi there","sender":"Agent","timestamp":"T","type":"CHAT_MESSAGE"},` +
		`{"content":"the VPN drops","sender":"User","timestamp":"T","type":"CHAT_MESSAGE"}]},` +
		`"payload":{"handoff_type":"NOTIFICATION","data":{"event_type":"outage","message":"the VPN drops"}},` +
		`"instructions":{"next_steps_suggestion":"call back","required_actions":["DIAGNOSE_ROOT_CAUSE","COMMUNICATE_SOLUTION_TO_CUSTOMER"],` +
		`"constraints":{"time_limit":"PT30S"},"success_criteria":"Root cause identified."}}`
	if got := normal(string(st.Message)); got != want {
		t.Errorf("the stored message:\n%s\nwant\n%s", got, want)
	}

	reqs := up.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d upstream requests, want support's one", len(reqs))
	}
	ms := reqs[0].Messages
	wantPrompt := "NOTIFICATION hand-off from desk (task ID, priority HIGH):\n" +
		`{"event_type":"outage","message":"the VPN drops"}` + "\n" +
		"Next steps: call back\n" +
		"Workflow state: CUSTOMER_ISSUE_ESCALATED\n" +
		"Previous actions:\n" +
		"- T STEP_COMPLETED: step look: \"looked at the VPN drops\"\n" +
		"User interaction history:\n" +
		"- T User: hello\n- T Agent: hi there\n- T User: the VPN drops\n" +
		"Required actions: DIAGNOSE_ROOT_CAUSE, COMMUNICATE_SOLUTION_TO_CUSTOMER\n" +
		`Constraints: {"time_limit":"PT30S"}` + "\n" +
		"Success criteria: Root cause identified."
	// The receiving run continues the conversation (whose turns come
	// first: the desk's own lands when its run ends, before or after), and
	// the message is its user input.
	last := ms[len(ms)-1]
	if ms[0].Role != "system" || ms[0].Content != "You support." || last.Role != "user" || normal(last.Content) != wantPrompt {
		t.Errorf("support's upstream request: %+v\nwant the last message\n%s", ms, wantPrompt)
	}
}

// TestHandoffTimeLimit: constraints.time_limit stops the receiving run,
// whose model never answers, and the message fails saying so.
func TestHandoffTimeLimit(t *testing.T) {
	up := llmtest.New(t, llmtest.Repeat(llmtest.Reply{Before: []llmtest.Event{llmtest.Stall()}}))
	defer up.Release() // before the gateway's cleanup waits for its requests
	dir := t.TempDir()
	writeFile(t, dir, "agents/support.yaml", supportAgent)
	cfg := testConfig(t, up.URL())
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	base := startGateway(t, cfg, nil)
	const msg = `{"metadata":{"message_id":"7f1f0a52-9a5e-4b8e-8f00-0000000000aa","timestamp":"2026-01-02T03:04:05Z",` +
		`"protocol_version":"1.0.0","sender_id":"ci","recipient_id":"support","task_id":"task-tl","priority":"LOW"},` +
		`"context":{"workflow_state":"CI","previous_actions":[]},"payload":{"handoff_type":"NOTIFICATION","data":{"event_type":"x","message":"y"}},` +
		`"instructions":{"constraints":{"time_limit":"PT0.3S"},"failure_handling_strategy":{"retry_count":0}}}`
	start := time.Now()
	if code := jsonCall(t, "POST", base+"/handoffs", msg, nil); code != http.StatusAccepted {
		t.Fatalf("POST /handoffs = %d", code)
	}
	got := waitTask(t, base, "task-tl", 1)[0]
	if got.Status == "COMPLETED" || !strings.Contains(got.Error, `agent "support", command "default": stopped at constraints.time_limit (300ms)`) {
		t.Errorf("the message: %+v", got)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the run stopped after %s", d)
	}
}
