package hub

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/handoff/queue"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/observe/observetest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// backends are the databases the ownership and bound tests run over: ""
// is a fresh SQLite file, else a Postgres schema of the test's own.
var backends = []struct {
	name string
	db   func(t *testing.T) string
}{
	{"sqlite", func(*testing.T) string { return "" }},
	{"postgres", func(t *testing.T) string { return pgtest.Schema(t) }},
}

func eachBackend(t *testing.T, test func(t *testing.T, db string)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b.db(t)) })
	}
}

var (
	alice = access.Caller{Owner: access.TokenOwner("a11ce")}
	bob   = access.Caller{Owner: access.TokenOwner("b0b")}
)

// rawMessage is a NOTIFICATION to a1 as a client POSTs it.
func rawMessage(t *testing.T, id, task string, p handoff.Priority, text string) []byte {
	t.Helper()
	msg, err := handoff.New(time.Now(), "client", handoff.Recipients{"a1"}, handoff.Notification,
		map[string]any{"event_type": "build", "message": text}, handoff.Origin{TaskID: task})
	if err != nil {
		t.Fatal(err)
	}
	msg.Metadata.MessageID, msg.Metadata.Priority = id, p
	msg.Fill(time.Now())
	raw, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// agentError asserts that err is an *apierr.Error of code and returns it.
func agentError(t *testing.T, err error, code string) *apierr.Error {
	t.Helper()
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("err %v, want %s", err, code)
	}
	return e
}

// TestOwnership (issue 24, item 4): a message submitted over the API is
// its caller's: another caller is told it does not exist (GET /handoffs,
// GET /tasks), an admin sees it; another caller's message id is a 409
// that shows nothing of the message and changes nothing; the same task id
// used by another caller is another task.
func TestOwnership(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		h := newHubOn(t, db, hubAgents, Limits{}, queue.Config{})
		ctx := t.Context()
		mine := rawMessage(t, "11111111-1111-4111-8111-111111111111", "task-a", handoff.Medium, "alice's secret")
		st, fresh, err := h.Submit(ctx, alice, mine)
		if err != nil || !fresh {
			t.Fatalf("Submit: %v %v", fresh, err)
		}
		id := st.MessageID
		wait(t, h, id)

		if st, err := h.Get(ctx, alice, id); err != nil || !strings.Contains(string(st.Result), "alice's secret") {
			t.Fatalf("the owner's Get: %+v %v", st, err)
		}
		if _, err := h.Get(ctx, admin, id); err != nil {
			t.Fatalf("an admin's Get: %v", err)
		}
		e := agentError(t, func() error { _, err := h.Get(ctx, bob, id); return err }(), apierr.CodeNotFound)
		if e.Status != http.StatusNotFound || e.Message != fmt.Sprintf("no hand-off message %q", id) {
			t.Errorf("another's Get: %d %q, want the 404 of a message that does not exist", e.Status, e.Message)
		}
		agentError(t, func() error { _, err := h.Task(ctx, bob, "task-a"); return err }(), apierr.CodeNotFound)

		// The same id, from bob: with alice's content or other, a 409
		// that tells nothing of hers.
		for _, raw := range [][]byte{mine, rawMessage(t, id, "task-b", handoff.Medium, "bob's")} {
			st, _, err := h.Submit(ctx, bob, raw)
			e := agentError(t, err, apierr.CodeConflict)
			if st != nil || strings.Contains(e.Message, "alice") {
				t.Errorf("bob reusing alice's id: %+v %q", st, e.Message)
			}
		}
		if st, err := h.Get(ctx, alice, id); err != nil || !strings.Contains(string(st.Message), "alice's secret") {
			t.Errorf("alice's message after bob's tries: %+v %v", st, err)
		}

		// Bob in alice's task id: his own task, hers unchanged.
		bobs := rawMessage(t, "22222222-2222-4222-8222-222222222222", "task-a", handoff.Medium, "bob's")
		if _, _, err := h.Submit(ctx, bob, bobs); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			who  access.Caller
			want int
		}{{alice, 1}, {bob, 1}, {admin, 2}} {
			task, err := h.Task(ctx, tc.who, "task-a")
			if err != nil || len(task.Messages) != tc.want {
				t.Errorf("%+v's task-a: %+v %v, want %d messages", tc.who, task, err, tc.want)
			}
		}
		if task, _ := h.Task(ctx, bob, "task-a"); task != nil && strings.Contains(string(task.Messages[0].Message), "alice") {
			t.Errorf("bob sees alice's message in task-a")
		}
	})
}

// TestExternalPriority (issue 24, item 8): a message over the API above
// handoffs.maxExternalPriority is refused with 422
// HANDOFF_PRIORITY_NOT_ALLOWED naming the field, and nothing is queued;
// the gateway's own agents (Send) are not bound.
func TestExternalPriority(t *testing.T) {
	h := newHub(t)
	ctx := t.Context()
	id := "33333333-3333-4333-8333-333333333333"
	_, _, err := h.Submit(ctx, alice, rawMessage(t, id, "t", handoff.Critical, "urgent"))
	e := agentError(t, err, apierr.CodeHandoffPriority)
	if e.Status != http.StatusUnprocessableEntity || !strings.Contains(e.Message, "handoffs.maxExternalPriority (HIGH)") ||
		len(e.Violations) != 1 || e.Violations[0].Pointer != "/metadata/priority" {
		t.Errorf("refusal: %d %q %+v", e.Status, e.Message, e.Violations)
	}
	agentError(t, func() error { _, err := h.Get(ctx, admin, id); return err }(), apierr.CodeNotFound)
	if _, _, err := h.Submit(ctx, alice, rawMessage(t, id, "t", handoff.High, "high")); err != nil {
		t.Errorf("HIGH over the API: %v", err)
	}
	if st := send(t, h, "a1", handoff.Notification, map[string]any{"event_type": "x", "message": "y"},
		func(m *handoff.Message) { m.Metadata.Priority = handoff.Critical }); st.Status != queue.StatusQueued && !st.Status.Final() {
		t.Errorf("an agent's CRITICAL: %+v", st)
	}

	// The operator may raise the ceiling, and must name a priority.
	open := newHubOn(t, "", hubAgents, Limits{MaxExternalPriority: handoff.Critical}, queue.Config{})
	if _, _, err := open.Submit(ctx, alice, rawMessage(t, "44444444-4444-4444-8444-444444444444", "t", handoff.Critical, "c")); err != nil {
		t.Errorf("CRITICAL under a CRITICAL ceiling: %v", err)
	}
	if _, err := New(Config{Limits: Limits{MaxExternalPriority: "URGENT"}}); err == nil {
		t.Error("New took the ceiling URGENT")
	}
}

// pingPongAgents hand a NOTIFICATION to each other for ever: each one's
// command for it is a handoff step to the other.
const pingPongAgents = `
name: ping
handoffs: [{type: NOTIFICATION}]
commands:
  - name: default
    steps:
      - id: send
        handoff: {to: pong, type: NOTIFICATION}
        with: {event_type: ping, message: "{{ .handoff.payload.data.message }}"}
---
name: pong
handoffs: [{type: NOTIFICATION}]
commands:
  - name: default
    steps:
      - id: send
        handoff: {to: ping, type: NOTIFICATION}
        with: {event_type: pong, message: "{{ .handoff.payload.data.message }}"}
---
name: a1
commands: [{name: default, reply: unused}]
`

// TestPingPongBounded (issue 24, item 5): two agents handing a message to
// each other through the real queue stop at handoffs.maxHops: the store
// holds exactly maxHops messages that ran and one DEAD, HANDOFF_LIMIT;
// every one is the first sender's (only it and admins see the task), and
// the refused one is counted as result "limit".
func TestPingPongBounded(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		const maxHops = 5
		rec := &observetest.Recorder{}
		h := newHubOn(t, db, pingPongAgents, Limits{}, queue.Config{MaxHops: maxHops}, rec)
		msg, err := handoff.New(time.Now(), "client", handoff.Recipients{"ping"}, handoff.Notification,
			map[string]any{"event_type": "start", "message": "hi"}, handoff.Origin{TaskID: "loop"})
		if err != nil {
			t.Fatal(err)
		}
		msg.Fill(time.Now())
		raw, _ := json.Marshal(msg)
		if _, _, err := h.Submit(t.Context(), alice, raw); err != nil {
			t.Fatal(err)
		}
		var task *TaskStatus
		deadline := time.Now().Add(time.Minute)
		for {
			task, err = h.Task(t.Context(), alice, "loop")
			if err != nil {
				t.Fatal(err)
			}
			if n := len(task.Messages); n > maxHops && task.Messages[n-1].Status.Final() {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the loop did not reach its bound: %d messages", len(task.Messages))
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond) // nothing more comes
		all, err := h.Task(t.Context(), admin, "loop")
		if err != nil || len(all.Messages) != maxHops+1 {
			t.Fatalf("the store holds %d messages of the loop, want %d", len(all.Messages), maxHops+1)
		}
		for i, m := range all.Messages[:maxHops] {
			if m.Status != queue.StatusCompleted || m.Hops != i+1 {
				t.Errorf("message %d: %s, hop %d", i, m.Status, m.Hops)
			}
		}
		last := all.Messages[maxHops]
		if last.Status != queue.StatusDead || last.Code != queue.CodeLimit || last.Attempts != 0 ||
			!strings.Contains(last.Error, "handoffs.maxHops is 5") {
			t.Errorf("the message past the bound: %+v", last)
		}
		if mine, err := h.Task(t.Context(), alice, "loop"); err != nil || len(mine.Messages) != maxHops+1 {
			t.Errorf("the sender sees %v messages of its loop (%v), want all %d", len(mine.Messages), err, maxHops+1)
		}
		agentError(t, func() error { _, err := h.Task(t.Context(), bob, "loop"); return err }(), apierr.CodeNotFound)
		limited := 0
		for _, ev := range rec.Events() {
			if strings.HasSuffix(ev, "end err="+observe.ErrHandoffLimit.Error()) {
				limited++
			}
		}
		if limited != 1 {
			t.Errorf("%d hand-offs observed as limited, want 1:\n%s", limited, strings.Join(rec.Events(), "\n"))
		}
	})
}

// TestOperatorsMessages: a message an agent sends outside any delivery
// and conversation (a file's schedule, the operator's agents) is the
// operator's: callers get 404, admins see it; one sent from a
// conversation is its owner's.
func TestOperatorsMessages(t *testing.T) {
	h := newHub(t)
	ctx := t.Context()
	data := map[string]any{"event_type": "x", "message": "y"}
	op := send(t, h, "a1", handoff.Notification, data, nil)
	agentError(t, func() error { _, err := h.Get(ctx, alice, op.MessageID); return err }(), apierr.CodeNotFound)
	if _, err := h.Get(ctx, admin, op.MessageID); err != nil {
		t.Errorf("admin: %v", err)
	}
	msg, err := handoff.New(time.Now(), "tester", handoff.Recipients{"a1"}, handoff.Notification, data, handoff.Origin{})
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := h.Send(ctx, msg, Origin{ContextID: "c1", Owner: alice.Owner})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Get(ctx, alice, st.MessageID); err != nil {
		t.Errorf("the conversation's owner: %v", err)
	}
	agentError(t, func() error { _, err := h.Get(ctx, bob, st.MessageID); return err }(), apierr.CodeNotFound)
}
