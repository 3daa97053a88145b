package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/llm/llmtest"
)

// The triage pair of the hand-off tests: the reviewer escalates to
// security, which triages and answers the reviewer with
// PROVIDE_INFORMATION.
const (
	reviewerAgent = `name: reviewer
handoffs:
  - {type: PROVIDE_INFORMATION, command: noted}
commands:
  - name: default
    steps:
      - id: escalate
        handoff: {to: security, type: ESCALATION, priority: HIGH, nextSteps: "check the finding"}
        with:
          issue_category: SECURITY
          severity: HIGH
          customer_info: {user_id: "{{ .userInfo.id }}", name: "{{ .userInfo.name }}"}
          technical_details: {symptoms: "{{ .userInputPrompt }}"}
  - name: noted
    reply: "noted: {{ .handoff.payload.data.summary }}"
`
	securityAgent = `name: security
handoffs:
  - {type: ESCALATION, command: triage}
commands:
  - name: default
    reply: security here
  - name: triage
    steps:
      - id: look
        reply: "triaged {{ .handoff.payload.data.technical_details.symptoms }} from {{ .handoff.metadata.sender_id }}"
      - id: answer
        dependsOn: [look]
        handoff: {to: reviewer, type: PROVIDE_INFORMATION}
        with: {provided_info: {verdict: real}, summary: the finding is real}
`
)

// jsonCall sends a request and decodes the JSON answer into out.
func jsonCall(t *testing.T, method, url, body string, out any, header ...string) int {
	t.Helper()
	resp, err := http.DefaultClient.Do(newRequest(t, method, url, body, header...))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, data)
		}
	}
	return resp.StatusCode
}

// handoffStatus is what GET /handoffs/{id} answers, in part.
type handoffStatus struct {
	MessageID  string   `json:"message_id"`
	TaskID     string   `json:"task_id"`
	Status     string   `json:"status"`
	Recipients []string `json:"recipients"`
	Attempts   int      `json:"attempts"`
	Error      string   `json:"error"`
	Result     struct {
		Agent, Command, Text string
	} `json:"result"`
}

// waitTask polls GET /tasks/{id} until it has n messages, all final.
func waitTask(t *testing.T, base, task string, n int) []handoffStatus {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var got struct{ Messages []handoffStatus }
		jsonCall(t, "GET", base+"/tasks/"+task, "", &got)
		done := len(got.Messages) == n
		for _, m := range got.Messages {
			if m.Status == "QUEUED" || m.Status == "RUNNING" {
				done = false
			}
		}
		if done {
			return got.Messages
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s did not finish: %+v", task, got.Messages)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestHandoffs: a reviewer's plan escalates from a conversation; security
// triages it and answers with PROVIDE_INFORMATION; both answers land in
// the user's conversation; the task lists both messages; POST /handoffs
// takes messages from outside, once per id, and refuses invalid ones with
// every violation by pointer.
func TestHandoffs(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "agents/reviewer.yaml", reviewerAgent)
	writeFile(t, dir, "agents/security.yaml", securityAgent)
	cfg := testConfig(t, "")
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	base := startGateway(t, cfg, nil)
	var list struct {
		Agents []struct {
			Name     string
			Handoffs json.RawMessage
		}
	}
	jsonCall(t, "GET", base+"/agents", "", &list)
	for _, a := range list.Agents {
		want := map[string]string{"reviewer": `[{"type":"PROVIDE_INFORMATION","command":"noted"}]`,
			"security": `[{"type":"ESCALATION","command":"triage"}]`}[a.Name]
		if string(a.Handoffs) != want {
			t.Errorf("GET /agents: %s accepts %s, want %s", a.Name, a.Handoffs, want)
		}
	}

	got := ask(t, base+"/agents/reviewer", `{"contextId":"conv-h","contextVariables":[{"name":"userInputPrompt","value":"SQL injection in login"},`+
		`{"name":"userInfo","value":{"id":"ada","name":"Ada"}}]}`)
	if e := got.errorFrame(); e != nil || !strings.HasPrefix(got.text, "\n> handed to security: ESCALATION (task ") {
		t.Fatalf("the reviewer answered %q, error %+v", got.text, e)
	}
	task := strings.Fields(strings.SplitN(got.text, "(task ", 2)[1])[0]
	task = strings.TrimSuffix(task, ",")
	msgs := waitTask(t, base, task, 2)
	if msgs[0].Status != "COMPLETED" || msgs[0].Result.Agent != "security" || msgs[0].Result.Command != "triage" ||
		!strings.HasPrefix(msgs[0].Result.Text, "triaged SQL injection in login from reviewer\n> handed to reviewer: PROVIDE_INFORMATION (task "+task) {
		t.Errorf("the escalation: %+v", msgs[0])
	}
	if msgs[1].Status != "COMPLETED" || msgs[1].Result.Text != "noted: the finding is real" || msgs[1].Recipients[0] != "reviewer" {
		t.Errorf("the answer: %+v", msgs[1])
	}
	var conv struct {
		Messages []struct{ Role, Content string }
	}
	jsonCall(t, "GET", base+"/contexts/conv-h", "", &conv, "X-Agentgw-User", "ada")
	var said []string
	for _, m := range conv.Messages {
		said = append(said, m.Role+": "+strings.SplitN(m.Content, "\n", 2)[0])
	}
	want := []string{"user: SQL injection in login", "assistant: ",
		"assistant: [security, on the ESCALATION hand-off from reviewer, task " + task + "]",
		"assistant: [reviewer, on the PROVIDE_INFORMATION hand-off from security, task " + task + "]"}
	// Each run's turn lands when the run ends: the answers to the
	// hand-offs may come in either order.
	slices.Sort(said)
	slices.Sort(want)
	if strings.Join(said, "|") != strings.Join(want, "|") {
		t.Errorf("the conversation:\n%s\nwant\n%s", strings.Join(said, "\n"), strings.Join(want, "\n"))
	}

	// agentgw chat lists the task.
	code, stdout, stderr := runChat(t, "", "--url", base, "--task", task)
	ids := regexp.MustCompile(`\([0-9a-f-]{36}\)`)
	wantOut := "task " + task + ": 2 messages\n\n" +
		"1. ESCALATION reviewer → security: COMPLETED (ID)\n   security/triage answered:\n   triaged SQL injection in login from reviewer\n" +
		"   > handed to reviewer: PROVIDE_INFORMATION (task " + task + ", message " + msgs[1].MessageID + ", QUEUED)\n\n" +
		"2. PROVIDE_INFORMATION security → reviewer: COMPLETED (ID)\n   reviewer/noted answered:\n   noted: the finding is real\n"
	if got := ids.ReplaceAllString(stdout, "(ID)"); code != 0 || got != wantOut {
		t.Errorf("chat --task = %d\n%s\nwant\n%s\nstderr %s", code, got, wantOut, stderr)
	}

	// From outside: queued once per id.
	const outside = `{"metadata":{"message_id":"7f1f0a52-9a5e-4b8e-8f00-000000000001","timestamp":"2026-01-02T03:04:05Z",` +
		`"protocol_version":"1.0.0","sender_id":"ci","recipient_id":"security","task_id":"task-ci","priority":"LOW"},` +
		`"context":{"workflow_state":"CI","previous_actions":[]},"payload":{"handoff_type":"ESCALATION","data":{"issue_category":"SECURITY",` +
		`"severity":"LOW","customer_info":{"user_id":"ci","name":"CI"},"technical_details":{"symptoms":"a secret in the log"}}},"instructions":{"next_steps_suggestion":"rotate it"}}`
	var first, again handoffStatus
	if code := jsonCall(t, "POST", base+"/handoffs", outside, &first); code != http.StatusAccepted || first.Status != "QUEUED" {
		var raw json.RawMessage
		jsonCall(t, "POST", base+"/handoffs", outside, &raw)
		t.Fatalf("POST /handoffs = %d %s", code, raw)
	}
	done := waitTask(t, base, "task-ci", 2)[0] // security answers the sender in the same task
	if done.Result.Text == "" || done.Attempts != 1 {
		t.Fatalf("the outside message: %+v", done)
	}
	if code := jsonCall(t, "POST", base+"/handoffs", outside, &again); code != http.StatusOK || again.Status != "COMPLETED" || again.Attempts != 1 {
		t.Fatalf("the same message again = %d %+v, want 200 and the record as it is", code, again)
	}

	// The same id with other content: refused, nothing queued.
	var clash struct{ Content struct{ ErrorCode string } }
	if code := jsonCall(t, "POST", base+"/handoffs", strings.Replace(outside, "a secret in the log", "another thing", 1), &clash); code != http.StatusConflict || clash.Content.ErrorCode != "CONFLICT" {
		t.Fatalf("the same id with other content = %d %+v", code, clash)
	}

	// Refused: every violation by pointer; an unknown recipient.
	var refusal struct {
		Content struct {
			ErrorCode string
			Details   struct {
				Violations []struct{ Pointer, Message string }
			}
		}
	}
	bad := strings.Replace(strings.Replace(outside, `"priority":"LOW"`, `"priority":"SOON"`, 1), `"severity":"LOW",`, ``, 1)
	if code := jsonCall(t, "POST", base+"/handoffs", bad, &refusal); code != http.StatusUnprocessableEntity || refusal.Content.ErrorCode != "INVALID_HANDOFF" {
		t.Fatalf("an invalid message = %d %+v", code, refusal)
	}
	var pointers []string
	for _, v := range refusal.Content.Details.Violations {
		pointers = append(pointers, v.Pointer)
	}
	if got := strings.Join(pointers, " "); got != "/metadata/priority /payload/data/severity" {
		t.Errorf("violations at %q", got)
	}
	unknown := strings.Replace(outside, `"recipient_id":"security"`, `"recipient_id":"securty"`, 1)
	if code := jsonCall(t, "POST", base+"/handoffs", unknown, &refusal); code != http.StatusNotFound || refusal.Content.ErrorCode != "AGENT_NOT_FOUND" {
		t.Fatalf("an unknown recipient = %d %+v", code, refusal)
	}
}

// TestHandoffTool: a model hands work on by itself with the built-in tool
// handoff_to_agent, sent as its agent; the tool's result (message and task
// ids) goes back to the model, and the recipient runs the message.
func TestHandoffTool(t *testing.T) {
	model := llmtest.New(t, llmtest.Respond(func(r llmtest.Request) llmtest.Reply {
		if r.LastMessage().Role == "tool" {
			return llmtest.Text("Handed on.")
		}
		return llmtest.Calls(llmtest.ToolCall{ID: "call_1", Name: "handoff_to_agent",
			Arguments: `{"to":"notified","type":"NOTIFICATION","data":{"event_type":"alert","message":"from the model"}}`})
	}))
	dir := t.TempDir()
	writeFile(t, dir, "agents/escalator.yaml", `name: escalator
tools:
  - name: handoff_to_agent
    description: Hand work to another agent.
    runtime: builtin
    entry: handoff_to_agent
    parameters: {type: object, properties: {to: {type: string}, type: {type: string}, data: {type: object}}, required: [to, type, data]}
commands:
  - name: default
    tools: [handoff_to_agent]
    messageTemplates: [{role: system, template: You hand work on.}]
`)
	writeFile(t, dir, "agents/notified.yaml", "name: notified\nhandoffs: [{type: NOTIFICATION}]\ncommands: [{name: default, reply: \"got {{ .handoff.payload.data.message }} from {{ .handoff.metadata.sender_id }}\"}]\n")
	cfg := testConfig(t, model.URL())
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	base := startGateway(t, cfg, nil)
	got := ask(t, base+"/agents/escalator", `{"contextVariables":[{"name":"userInputPrompt","value":"alert them"}]}`)
	if e := got.errorFrame(); e != nil || !strings.HasSuffix(got.text, "Handed on.") {
		t.Fatalf("the escalator answered %q, error %+v", got.text, e)
	}
	toolResult := lastToolResult(model)
	var res struct {
		Status string
		Result struct {
			TaskID string `json:"task_id"`
		}
	}
	if err := json.Unmarshal([]byte(toolResult), &res); err != nil || res.Status != "SUCCESS" || res.Result.TaskID == "" {
		t.Fatalf("the tool's result the model read: %s", toolResult)
	}
	if m := waitTask(t, base, res.Result.TaskID, 1)[0]; m.Status != "COMPLETED" || m.Result.Text != "got from the model from escalator" {
		t.Fatalf("the hand-off: %+v", m)
	}
}

// TestHandoffsAdversarial: messages of adversarial size are refused in the
// protocol's shape and valid ones within the bounds are queued: over the
// size bound, deeply nested data, many tiny fields.
func TestHandoffsAdversarial(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "agents/notified.yaml", "name: notified\nhandoffs: [{type: NOTIFICATION}]\ncommands: [{name: default, reply: ok}]\n")
	cfg := testConfig(t, "")
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	base := startGateway(t, cfg, nil)
	msg := func(data string) string {
		return `{"metadata":{"message_id":"7f1f0a52-9a5e-4b8e-8f00-000000000a01","timestamp":"2026-01-02T03:04:05Z",` +
			`"protocol_version":"1.0.0","sender_id":"ci","recipient_id":"notified","task_id":"task-adv","priority":"LOW"},` +
			`"context":{"workflow_state":"CI","previous_actions":[]},"payload":{"handoff_type":"NOTIFICATION","data":` + data + `},"instructions":{}}`
	}
	many := make([]string, 60000) // just under the 1 MiB bound
	for i := range many {
		many[i] = fmt.Sprintf(`"k%d":1`, i)
	}
	tests := []struct {
		name, body string
		status     int
		code       string
	}{
		{"over the size bound", msg(`{"event_type":"x","message":"` + strings.Repeat("a", 2<<20) + `"}`), http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE"},
		// Valid JSON within the bounds is a valid message: queued.
		{"deep nesting", msg(`{"event_type":"x","message":"y","details":` + strings.Repeat(`{"a":`, 5000) + `1` + strings.Repeat(`}`, 5000) + `}`), http.StatusAccepted, ""},
		{"many tiny fields", strings.Replace(msg(`{"event_type":"x","message":"y",`+strings.Join(many, ",")+`}`), "0a01", "0a02", 1), http.StatusAccepted, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var refusal struct {
				Content struct{ ErrorCode, Message string }
			}
			code := jsonCall(t, "POST", base+"/handoffs", tc.body, &refusal)
			if code != tc.status || refusal.Content.ErrorCode != tc.code || len(refusal.Content.Message) > 4096 {
				t.Fatalf("= %d %s (message of %d bytes), want %d %s", code, refusal.Content.ErrorCode, len(refusal.Content.Message), tc.status, tc.code)
			}
		})
	}
}
