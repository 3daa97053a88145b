package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/request"
	conversation1 "github.com/agentgw/agentgw/conversation"
	"github.com/agentgw/agentgw/conversation/binding"
	"github.com/agentgw/agentgw/store"
)

// convBody is a request of the tool agent on conversation id.
func convBody(id, input string) string {
	return `{"agent":"t","contextId":"` + id + `","contextVariables":[{"name":"userInputPrompt","value":"` + input + `"}]}`
}

// storedMessages is the conversation's messages as the store holds them.
func storedMessages(t *testing.T, repo conversation1.Repo, id string) string {
	t.Helper()
	c, err := repo.Get(t.Context(), id, "")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(c.Messages)
	return string(data)
}

// TestConversationToolTurns: a turn whose model calls tools is kept as the
// model saw it (the assistant's calls, each result, the answer), the next
// turn sends exactly that upstream, and a turn paused for consent is kept
// whole once the resumed run answers.
func TestConversationToolTurns(t *testing.T) {
	r, m := toolRunner(t, store.NewMemory())
	repo := conversation1.NewStoreRepo(store.NewMemory(), conversation1.Config{})
	r.cfg.Conversations = binding.New(repo)
	if _, err := runRequest(t, r, convBody("conv-t", "add")); err != nil {
		t.Fatal(err)
	}
	const result1 = `{\"callId\":\"c1\",\"status\":\"SUCCESS\",\"result\":3,\"executionTime\":0}`
	turn1 := `{"role":"user","content":"add"},` +
		`{"role":"assistant","content":"let me see. ","toolCalls":[{"id":"c1","type":"function","function":{"name":"add","arguments":"{\"a\": 1, \"b\": 2}"}},{"id":"c2","type":"function","function":{"name":"add","arguments":"{\"a\": 10, \"b\": 20}"}}]},` +
		`{"role":"tool","content":"` + result1 + `","toolCallId":"c1"},` +
		`{"role":"tool","content":"{\"callId\":\"c2\",\"status\":\"SUCCESS\",\"result\":30,\"executionTime\":0}","toolCallId":"c2"},` +
		`{"role":"assistant","content":"results: ` + strings.ReplaceAll(result1, `\"`, `\"`) + ` | {\"callId\":\"c2\",\"status\":\"SUCCESS\",\"result\":30,\"executionTime\":0}"}`
	if got := zeroTimes(storedMessages(t, repo, "conv-t")); got != "["+turn1+"]" {
		t.Fatalf("stored after turn 1:\n%s\nwant\n[%s]", got, turn1)
	}
	if _, err := runRequest(t, r, convBody("conv-t", "hello")); err != nil {
		t.Fatal(err)
	}
	var sent struct{ Messages json.RawMessage }
	_ = json.Unmarshal(m.Last(t).Body, &sent)
	want := `[{"role":"system","content":"You use tools."},{"role":"user","content":"add"},` +
		`{"role":"assistant","content":"let me see. ","tool_calls":[{"id":"c1","type":"function","function":{"name":"add","arguments":"{\"a\": 1, \"b\": 2}"}},{"id":"c2","type":"function","function":{"name":"add","arguments":"{\"a\": 10, \"b\": 20}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"` + result1 + `"},` +
		`{"role":"tool","tool_call_id":"c2","content":"{\"callId\":\"c2\",\"status\":\"SUCCESS\",\"result\":30,\"executionTime\":0}"},` +
		`{"role":"assistant","content":"results: ` + result1 + ` | {\"callId\":\"c2\",\"status\":\"SUCCESS\",\"result\":30,\"executionTime\":0}"},` +
		`{"role":"user","content":"hello"}]`
	if got := zeroTimes(string(sent.Messages)); got != want {
		t.Fatalf("turn 2 upstream messages:\n%s\nwant\n%s", got, want)
	}

	// A consent pause: nothing is kept until the resumed run answers.
	rec, err := runRequest(t, r, convBody("conv-c", "deploy"))
	if err != nil {
		t.Fatal(err)
	}
	if got := storedMessages(t, repo, "conv-c"); got != "[]" {
		t.Fatalf("a paused turn was kept: %s", got)
	}
	body := `{"agent":"t","action":{"action":"confirm","state":` + q(lastAction(t, rec).State) + `,"accepted":true}}`
	if _, err := runRequest(t, r, body); err != nil {
		t.Fatal(err)
	}
	got := zeroTimes(storedMessages(t, repo, "conv-c"))
	wantC := `[{"role":"user","content":"deploy"},` +
		`{"role":"assistant","content":"let me see. ","toolCalls":[{"id":"c1","type":"function","function":{"name":"deploy","arguments":"{\"env\": \"prod\"}"}},{"id":"c2","type":"function","function":{"name":"add","arguments":"{\"a\": 1, \"b\": 1}"}}]},` +
		`{"role":"tool","content":"{\"callId\":\"c1\",\"status\":\"SUCCESS\",\"result\":\"deployed\",\"executionTime\":0}","toolCallId":"c1"},` +
		`{"role":"tool","content":"{\"callId\":\"c2\",\"status\":\"SUCCESS\",\"result\":2,\"executionTime\":0}","toolCallId":"c2"},` +
		`{"role":"assistant","content":"results: {\"callId\":\"c1\",\"status\":\"SUCCESS\",\"result\":\"deployed\",\"executionTime\":0} | {\"callId\":\"c2\",\"status\":\"SUCCESS\",\"result\":2,\"executionTime\":0}"}]`
	if got != wantC {
		t.Fatalf("stored after the consent:\n%s\nwant\n%s", got, wantC)
	}
}

var execTime = regexp.MustCompile(`\\"executionTime\\":[0-9]+`)

// zeroTimes sets the tool results' executionTime to 0.
func zeroTimes(s string) string {
	return execTime.ReplaceAllString(s, `\"executionTime\":0`)
}

const convPlanAgent = `
name: p
commands:
  - name: default
    steps:
      - id: say
        reply: "last={{ .context.state.last }} n={{ len .messages }}|"
      - id: seen
        set: {seen: "$context.state.last"}
      - id: keep
        dependsOn: [say, seen]
        set: {context.state.last: "$input.prompt", context.state.by.plan: true}
      - id: tell
        dependsOn: [keep]
        reply: "seen={{ .state.seen }}"
  - name: small
    modelConfiguration: {modelName: m, contextLength: 300}
    messageTemplates:
      - {role: system, template: S}
`

// TestConversationPlanState: plans read the conversation's state as
// $context.state and .context.state, a set into context.state.x is kept
// with the turn (one change), and the next request sees it.
func TestConversationPlanState(t *testing.T) {
	repo := conversation1.NewStoreRepo(store.NewMemory(), conversation1.Config{})
	r, _ := testRunner(t, convPlanAgent, nil, RunnerConfig{Conversations: binding.New(repo)})
	body := func(prompt string) string {
		return `{"agent":"p","contextId":"conv-p","contextVariables":[{"name":"userInputPrompt","value":"` + prompt + `"}]}`
	}
	for i, want := range []string{"last= n=0|seen=", "last=one n=2|seen=one"} {
		rec, err := runRequest(t, r, body([]string{"one", "two"}[i]))
		if err != nil {
			t.Fatal(err)
		}
		if got := rec.Transcript(); got != want {
			t.Fatalf("turn %d: %q, want %q (%v)", i+1, got, want, rec.Err())
		}
	}
	ch, err := repo.Changes(t.Context(), "conv-p", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ch.Changes {
		ch.Changes[i].At = time.Time{}
	}
	got, _ := json.Marshal(ch)
	want := `{"contextId":"conv-p","version":3,"changes":[{"version":1,"at":"0001-01-01T00:00:00Z","operation":"CREATE"},` +
		`{"version":2,"at":"0001-01-01T00:00:00Z","operation":"ADD_MESSAGE","messages":[{"role":"user","content":"one"},{"role":"assistant","content":"last= n=0|seen="}],"state":{"by":{"plan":true},"last":"one"}},` +
		`{"version":3,"at":"0001-01-01T00:00:00Z","operation":"ADD_MESSAGE","messages":[{"role":"user","content":"two"},{"role":"assistant","content":"last=one n=2|seen=one"}],"state":{"by":{"plan":true},"last":"two"}}],"truncated":false}`
	if string(got) != want {
		t.Fatalf("change log:\n%s\nwant\n%s", got, want)
	}
}

// TestConversationBudget: over the model's budget, the oldest stored turns
// are cut first, and a tool result never leads the turns left.
func TestConversationBudget(t *testing.T) {
	repo := conversation1.NewStoreRepo(store.NewMemory(), conversation1.Config{})
	up := okModel(t)
	r, logs := testRunner(t, convPlanAgent, up, RunnerConfig{Conversations: binding.New(repo)})
	if _, _, err := repo.Open(t.Context(), "conv-b", ""); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("word ", 150)
	old := []conversation1.Message{
		{Role: "user", Content: "first " + long},
		{Role: "assistant", ToolCalls: json.RawMessage(`[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]`)},
		{Role: "tool", ToolCallID: "c1", Content: "result " + long},
		{Role: "assistant", Content: "latest"},
	}
	if _, err := repo.Apply(t.Context(), "conv-b", "", conversation1.Operation{Op: conversation1.OpAddMessage, Messages: old}, 0); err != nil {
		t.Fatal(err)
	}
	body := `{"agent":"p","command":"small","contextId":"conv-b","contextVariables":[{"name":"userInputPrompt","value":"now"}]}`
	if _, err := runRequest(t, r, body); err != nil {
		t.Fatal(err)
	}
	var sent struct{ Messages json.RawMessage }
	_ = json.Unmarshal(up.Last(t).Body, &sent)
	if want := `[{"role":"system","content":"S"},{"role":"assistant","content":"latest"},{"role":"user","content":"now"}]`; string(sent.Messages) != want {
		t.Fatalf("upstream messages %s\nwant %s", sent.Messages, want)
	}
	if !strings.Contains(logs.String(), "dropped the 3 oldest turns") {
		t.Fatalf("no log of the cut: %s", logs)
	}
}

// failingSwaps is a store whose writes fail once fail is set.
type failingSwaps struct {
	*store.Memory
	fail atomic.Bool
}

func (f *failingSwaps) Swap(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	if f.fail.Load() {
		return false, errors.New("connection refused")
	}
	return f.Memory.Swap(ctx, key, old, value, ttl)
}

// TestConversationStoreDown: a store that fails when the turn is kept is
// an in-stream STORE_UNAVAILABLE after the answer, then the end.
func TestConversationStoreDown(t *testing.T) {
	st := &failingSwaps{Memory: store.NewMemory()}
	repo := conversation1.NewStoreRepo(st, conversation1.Config{})
	r, _ := testRunner(t, convPlanAgent, hiModel(t), RunnerConfig{Conversations: binding.New(repo)})
	req, err := request.Decode([]byte(`{"agent":"p","command":"small","contextId":"conv-d","contextVariables":[{"name":"userInputPrompt","value":"x"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	run, err := r.Prepare(req)
	if err != nil {
		t.Fatal(err)
	}
	st.fail.Store(true)
	rec := &emit.Recorder{}
	run.Execute(t.Context(), rec)
	var kinds []string
	for _, f := range rec.Frames() {
		kinds = append(kinds, f.Kind)
	}
	if got := fmt.Sprint(kinds); got != "[chunk chunk chunk error end]" { // Hi, there, the finish
		t.Fatalf("frames %s", got)
	}
	if e := rec.Err(); e.Code != "STORE_UNAVAILABLE" || strings.Contains(e.Message, "refused") {
		t.Fatalf("error %+v", e)
	}
}

const convVersionAgent = `
name: v
commands:
  - name: default
    messageTemplates:
      - {role: system, template: "cmd v={{ .context.version }} id={{ .context.contextId }} n={{ len .context.state }}"}
  - name: plan
    steps:
      - id: expr
        set: {v: "$context.version", id: "$context.contextId"}
      - id: say
        dependsOn: [expr]
        reply: "step v={{ .context.version }} id={{ .context.contextId }} n={{ len .context.state }} $v={{ .state.v }} $id={{ .state.id }} editor={{ .context.activeEditor.filePath }}"
`

// TestConversationContextSameInPlans: .context is the conversation in plan
// step templates and in $context as it is in command templates: its
// version and id render in both (they rendered empty in steps).
func TestConversationContextSameInPlans(t *testing.T) {
	repo := conversation1.NewStoreRepo(store.NewMemory(), conversation1.Config{})
	if _, err := repo.Create(t.Context(), "conv-v", "", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Apply(t.Context(), "conv-v", "", conversation1.Operation{Op: conversation1.OpUpdateState, State: map[string]any{"a": 1.0}}, 0); err != nil {
		t.Fatal(err)
	}
	up := okModel(t)
	r, _ := testRunner(t, convVersionAgent, up, RunnerConfig{Conversations: binding.New(repo)})
	body := func(cmd string) string {
		return `{"agent":"v","command":"` + cmd + `","contextId":"conv-v","contextVariables":[{"name":"activeEditor","value":{"filePath":"a.go","content":"x"}}]}`
	}
	rec, err := runRequest(t, r, body("plan"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rec.Transcript(), "step v=2 id=conv-v n=1 $v=2 $id=conv-v editor=a.go"; got != want {
		t.Fatalf("plan step: %q, want %q (%v)", got, want, rec.Err())
	}
	// The plan's turn made version 3; the command's template sees it.
	if _, err := runRequest(t, r, body("default")); err != nil {
		t.Fatal(err)
	}
	var sent struct{ Messages json.RawMessage }
	_ = json.Unmarshal(up.Last(t).Body, &sent)
	want := `[{"role":"system","content":"cmd v=3 id=conv-v n=1"},{"role":"assistant","content":"step v=2 id=conv-v n=1 $v=2 $id=conv-v editor=a.go"}]`
	if got := string(sent.Messages); got != want {
		t.Fatalf("command upstream messages:\n%s\nwant\n%s", got, want)
	}
}
