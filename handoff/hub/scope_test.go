package hub

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/handoff/queue"
	"github.com/agentgw/agentgw/internal/access"
)

// scopeAgents: relay hands what it gets on to the agent the message names
// (its recipient is a template over the message: the sender steers it);
// a1 and a2 take NOTIFICATIONs; backup takes escalations; logger takes
// fallbacks.
const scopeAgents = `
name: relay
handoffs: [{type: NOTIFICATION}]
commands:
  - name: default
    steps:
      - id: send
        handoff: {to: "{{ .handoff.payload.data.message }}", type: NOTIFICATION}
        with: {event_type: relayed, message: "from relay"}
---
name: a1
handoffs: [{type: NOTIFICATION, command: take}]
commands: [{name: default, reply: unused}, {name: take, reply: "a1 got {{ .handoff.payload.data.message }}"}]
---
name: a2
handoffs: [{type: NOTIFICATION}]
commands: [{name: default, reply: "a2 got {{ .handoff.payload.data.message }}"}]
---
name: backup
handoffs: [{type: ESCALATION}]
commands: [{name: default, reply: took}]
---
name: logger
commands: [{name: default, reply: logged}]
`

// scopedMessage is a NOTIFICATION to to, in task task, with data.message
// text and no retry, edited by edit.
func scopedMessage(t *testing.T, to, task, text string, edit func(*handoff.Message)) []byte {
	t.Helper()
	msg, err := handoff.New(time.Now(), "client", strings.Split(to, ","), handoff.Notification,
		map[string]any{"event_type": "build", "message": text}, handoff.Origin{TaskID: task})
	if err != nil {
		t.Fatal(err)
	}
	zero := 0
	msg.Instructions.FailureHandling = &handoff.FailureHandlingStrategy{RetryCount: &zero}
	if edit != nil {
		edit(msg)
	}
	msg.Fill(time.Now())
	raw, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestScopedHandoffs (issue 31 follow-up): a caller with a stored key's
// scope hands off only to recipients (and escalate_to, fallback_action)
// whose command for the message is in its scope: anything else is
// FORBIDDEN and nothing is queued. The scope travels with the message: a
// run the message started hands off within it only, whatever the message
// asked (the chain's next message is refused, the run fails, nothing
// reaches the agent out of scope); an unscoped caller's chain is as
// before.
func TestScopedHandoffs(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		// Every key is live (TestHandoffKeyChecked revokes them).
		live := func(context.Context, string) (bool, error) { return true, nil }
		h := newHubWith(t, db, scopeAgents, Config{Keys: live}, queue.Config{})
		ctx := t.Context()
		carol := access.Caller{Owner: access.MemberOwner("carol"), KeyID: "k1",
			Scope: &access.Scope{Agents: []string{"relay", "a1/take"}}}
		dan := access.Caller{Owner: access.MemberOwner("dan"), KeyID: "k2",
			Scope: &access.Scope{Agents: []string{"a1/default", "a2", "relay/other"}}}

		// Refused at the door: the message is not queued.
		for _, tc := range []struct {
			name string
			who  access.Caller
			to   string
			edit func(*handoff.Message)
			want string
		}{
			{"recipient out of scope", carol, "a2", nil, `this key may not hand off to agent "a2" (command "default")`},
			{"one of several", carol, "a1,a2", nil, `this key may not hand off to agent "a2" (command "default")`},
			{"the type's command out of scope", dan, "a1", nil, `this key may not hand off to agent "a1" (command "take")`},
			{"escalate_to", carol, "a1", func(m *handoff.Message) { m.Instructions.FailureHandling.EscalateTo = "backup" },
				`this key may not hand off to agent "backup" (command "default")`},
			{"fallback_action", carol, "a1", func(m *handoff.Message) { m.Instructions.FailureHandling.FallbackAction = "logger" },
				`this key may not hand off to agent "logger" (command "default")`},
		} {
			raw := scopedMessage(t, tc.to, "refused", "x", tc.edit)
			_, _, err := h.Submit(ctx, tc.who, raw)
			e := agentError(t, err, apierr.CodeForbidden)
			if e.Message != tc.want {
				t.Errorf("%s: %q, want %q", tc.name, e.Message, tc.want)
			}
		}
		if task, err := h.Task(ctx, admin, "refused"); err == nil && len(task.Messages) > 0 {
			t.Errorf("a refused message was queued: %+v", task.Messages)
		}

		// In scope, directly and through relay.
		for _, tc := range []struct {
			task, to, text string
		}{{"direct", "a1", "hi"}, {"chain", "relay", "a1"}} {
			st, _, err := h.Submit(ctx, carol, scopedMessage(t, tc.to, tc.task, tc.text, nil))
			if err != nil {
				t.Fatalf("%s: %v", tc.task, err)
			}
			if got := wait(t, h, st.MessageID); got.Status != queue.StatusCompleted {
				t.Fatalf("%s: %+v", tc.task, got)
			}
		}
		chain := waitTask(t, h, "chain", 2)
		if got := resultText(t, chain.Messages[1]); chain.Messages[1].Status != queue.StatusCompleted || got != "a1: a1 got from relay" {
			t.Errorf("the chain in scope: %s %q", chain.Messages[1].Status, got)
		}

		// The chain out of scope: relay's hand-off to a2 is refused, relay's
		// run fails, a2 gets nothing.
		st, _, err := h.Submit(ctx, carol, scopedMessage(t, "relay", "escape", "a2", nil))
		if err != nil {
			t.Fatal(err)
		}
		got := wait(t, h, st.MessageID)
		if got.Status != queue.StatusDead || !strings.Contains(got.Error, `this key may not hand off to agent "a2" (command "default")`) {
			t.Errorf("relay's run handing off out of scope: %s %q", got.Status, got.Error)
		}
		if task, err := h.Task(ctx, admin, "escape"); err != nil || len(task.Messages) != 1 {
			t.Errorf("the chain escaped its scope: %+v %v", task, err)
		}

		// A run of a request with the key (Send, the caller in the
		// context): held to the key's scope as well.
		msg, err := handoff.New(time.Now(), "tester", handoff.Recipients{"a2"}, handoff.Notification,
			map[string]any{"event_type": "build", "message": "x"}, handoff.Origin{TaskID: "request"})
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = h.Send(access.NewContext(ctx, carol), msg, Origin{})
		agentError(t, err, apierr.CodeForbidden)

		// Without a scope (a static token's caller): the same chain runs.
		st, _, err = h.Submit(ctx, alice, scopedMessage(t, "relay", "free", "a2", nil))
		if err != nil {
			t.Fatal(err)
		}
		wait(t, h, st.MessageID)
		free := waitTask(t, h, "free", 2)
		if got := resultText(t, free.Messages[1]); got != "a2: a2 got from relay" {
			t.Errorf("an unscoped chain: %q", got)
		}
	})
}

// waitTask polls task id until it holds n messages, all final.
func waitTask(t *testing.T, h *Hub, id string, n int) *TaskStatus {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		task, err := h.Task(t.Context(), admin, id)
		if err != nil && !strings.Contains(err.Error(), "no task") {
			t.Fatal(err)
		}
		if err == nil && len(task.Messages) == n && task.Messages[n-1].Status.Final() {
			return task
		}
	}
	t.Fatalf("task %s did not reach %d final messages", id, n)
	return nil
}
