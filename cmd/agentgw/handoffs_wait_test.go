package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/llm/llmtest"
)

// The agents of the wait tests: asker hands a NOTIFICATION to the agent
// named in its input and waits for the answer; quick answers at once, slow
// never (its model hangs).
const (
	askerAgent = `name: asker
commands:
  - name: default
    steps:
      - id: send
        handoff: {to: quick, type: NOTIFICATION, wait: 20s}
        with: {event_type: question, message: "is the VPN up"}
`
	briefAgent = `name: brief
commands:
  - name: default
    steps:
      - id: send
        handoff: {to: slow, type: NOTIFICATION, wait: 300ms}
        with: {event_type: question, message: "is the VPN up"}
`
	quickAgent = `name: quick
handoffs:
  - {type: NOTIFICATION, command: default}
commands:
  - name: default
    reply: "quick says: {{ .handoff.payload.data.message }} yes"
`
	slowAgent = `name: slow
handoffs:
  - {type: NOTIFICATION, command: default}
commands:
  - name: default
    messageTemplates:
      - {role: system, template: You are slow.}
`
)

// frameIDs are what changes from one answer to the next in its frames.
var frameIDs = regexp.MustCompile(`"(id|created)":("[^"]*"|\d+)`)

// frames are an answer's events as the plugin reads them, their ids, times
// and UUIDs replaced.
func frames(events []streamEvent) []string {
	var out []string
	for _, ev := range events {
		out = append(out, ev.Name+" "+normal(frameIDs.ReplaceAllString(ev.Data, `"$1":X`)))
	}
	return out
}

// TestHandoffWait: a handoff step with wait streams the receiver's answer
// into the sender's stream when it comes in time, and when it does not,
// says where it will be.
func TestHandoffWait(t *testing.T) {
	up := llmtest.New(t, llmtest.Repeat(llmtest.Reply{Before: []llmtest.Event{llmtest.Stall()}}))
	defer up.Release() // before the gateway's cleanup waits for its requests
	dir := t.TempDir()
	for name, src := range map[string]string{"asker": askerAgent, "brief": briefAgent, "quick": quickAgent, "slow": slowAgent} {
		writeFile(t, dir, "agents/"+name+".yaml", src)
	}
	cfg := testConfig(t, up.URL())
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	base := startGateway(t, cfg, nil)

	const chunk = `{"id":X,"object":"chat.completion.chunk","created":X,"model":"gpt-4o-mini","choices":[{"index":0,"delta":`
	text := func(s string) string {
		return " " + chunk + `{"role":"assistant","content":` + strings.ReplaceAll(jsonOf(s), `\u003e`, ">") + `},"finish_reason":null}]}`
	}
	end := []string{" " + chunk + `{},"finish_reason":"stop"}]}`, " [DONE]"}

	// In time: the answer follows the hand-off.
	_, events := postAgent(t, base+"/agents/asker", `{}`)
	want := append([]string{text("\n> handed to quick: NOTIFICATION (task ID, message ID, QUEUED)\n"),
		text("> quick answered:\nquick says: is the VPN up yes\n")}, end...)
	if got := frames(events); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the frames:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Too late: where the answer will be, the message's own id and task.
	_, events = postAgent(t, base+"/agents/brief", `{}`)
	ids := regexp.MustCompile(`task ([0-9a-f-]{36}), message ([0-9a-f-]{36})`).FindStringSubmatch(strings.Join(frames2(events), ""))
	if ids == nil {
		t.Fatalf("no ids in %v", events)
	}
	want = append([]string{text("\n> handed to slow: NOTIFICATION (task ID, message ID, QUEUED)\n"),
		text("> no answer within 300ms (still RUNNING): its answer will be at GET /handoffs/ID (task ID)\n")}, end...)
	// The queue may not have started the run yet.
	got := strings.Replace(strings.Join(frames(events), "\n"), "still QUEUED", "still RUNNING", 1)
	if got != strings.Join(want, "\n") || !strings.Contains(strings.Join(frames2(events), ""), "GET /handoffs/"+ids[2]+" (task "+ids[1]+")") {
		t.Errorf("the frames:\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
}

// frames2 are the events' data as sent.
func frames2(events []streamEvent) []string {
	var out []string
	for _, ev := range events {
		out = append(out, ev.Data)
	}
	return out
}

// TestLintHandoffStep: a time_limit that is no duration and a wait past
// the bound are load errors, at the step.
func TestLintHandoffStep(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "x.yaml", `name: x
commands:
  - name: default
    steps:
      - id: send
        handoff: {to: y, type: NOTIFICATION, constraints: {time_limit: soon}, wait: 11m}
        with: {event_type: a, message: b}
`)
	code, stdout, _ := runCLI(t, nil, "lint", dir)
	at := filepath.Join(dir, "x.yaml") + `:5:9: command "default": step "send": handoff: `
	want := at + `constraints.time_limit: "soon" is not a positive duration such as PT2H or 90s` + "\n" +
		at + "wait 11m0s is not between 0 and 10m0s\n"
	if code == 0 || stdout != want {
		t.Errorf("exit %d\n%s\nwant\n%s", code, stdout, want)
	}
}
