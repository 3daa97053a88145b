package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/handoff/accept"
	"github.com/agentgw/agentgw/handoff/handoffstep"
	"github.com/agentgw/agentgw/handoff/queue"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/store/pgstore"
	"github.com/agentgw/agentgw/store/sqlitestore"
)

// hubAgents: a pool of two notified agents, a flaky one whose command
// needs a model the gateway does not have (so every run fails), a backup
// it escalates to, a logger that takes fallbacks, and one with a data
// schema of its own.
const hubAgents = `
name: a1
handoffs: [{type: NOTIFICATION}]
commands: [{name: default, reply: "a1 got {{ .handoff.payload.data.message }}"}]
---
name: a2
handoffs: [{type: NOTIFICATION}]
commands: [{name: default, reply: "a2 got {{ .handoff.payload.data.message }}"}]
---
name: flaky
handoffs: [{type: TASK_TRANSFER}]
commands: [{name: default, messageTemplates: [{role: system, template: x}]}]
---
name: backup
handoffs: [{type: TASK_TRANSFER, command: take}, {type: ESCALATION, command: escalated}]
commands:
  - {name: default, reply: unused}
  - {name: take, reply: "backup took {{ .handoff.payload.data.task_description }}"}
  - name: escalated
    reply: "backup took {{ .handoff.payload.data.technical_details.escalated_message.payload.data.task_description }} ({{ .handoff.payload.handoff_type }} of {{ .handoff.payload.data.technical_details.failure.message_id }})"
---
name: logger
commands: [{name: default, reply: "logged {{ .handoff.metadata.message_id }}"}]
---
name: strict
handoffs:
  - type: NOTIFICATION
    schema: {type: object, required: [ticket], properties: {ticket: {type: string, pattern: "^T-[0-9]+$"}}}
commands: [{name: default, reply: ok}]
`

// newHub is a hub over hubAgents with a queue in a fresh SQLite file.
func newHub(t *testing.T) *Hub {
	t.Helper()
	return newHubOn(t, "", hubAgents, Limits{}, queue.Config{})
}

// newHubOn is a hub over agents (YAML documents separated by ---) with
// limits, runs watched by obs, and a queue of qcfg (its waits set here)
// in the database db: a fresh SQLite file for "", else a Postgres URL.
func newHubOn(t *testing.T, db, agentDocs string, limits Limits, qcfg queue.Config, obs ...observe.Observer) *Hub {
	t.Helper()
	return newHubWith(t, db, agentDocs, Config{Limits: limits}, qcfg, obs...)
}

// newHubWith builds a hub of cfg as the gateway does, in dependency order:
// the registry and the queue, the hub over them, the step kinds sending
// through it and the agents, the runner, then the queue started with the
// hub's handlers over the runner.
func newHubWith(t testing.TB, db, agentDocs string, cfg Config, qcfg queue.Config, obs ...observe.Observer) *Hub {
	t.Helper()
	qcfg.PollInterval, qcfg.Backoff = 20*time.Millisecond, func(int) time.Duration { return 10 * time.Millisecond }
	var q *queue.Queue
	if db == "" {
		st, err := sqlitestore.Open(filepath.Join(t.TempDir(), "db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		q, err = queue.NewSQLite(t.Context(), st.DB(), qcfg)
		if err != nil {
			t.Fatal(err)
		}
	} else {
		st, err := pgstore.Open(t.Context(), db)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		q, err = queue.NewPostgres(t.Context(), st.Pool(), qcfg)
		if err != nil {
			t.Fatal(err)
		}
	}
	reg := program.NewRegistry(nil)
	cfg.Registry, cfg.Queue = reg, q
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	kinds := program.NewKinds()
	if err := kinds.Register(handoffstep.New(stepSender{h})); err != nil {
		t.Fatal(err)
	}
	var agents []*program.Agent
	for i, doc := range strings.Split(agentDocs, "\n---\n") {
		as, diags := program.ParseWith(program.LoadOptions{Kinds: kinds, Parts: []program.Part{accept.Part{}}}, fmt.Sprintf("a%d.yaml", i), []byte(doc))
		if diags.Errors() > 0 {
			t.Fatalf("agents: %v", diags)
		}
		agents = append(agents, as...)
	}
	reg.Swap(agents)
	r := runner.NewRunner(reg, runner.RunnerConfig{Observers: obs})
	if err := q.Start(context.Background(), h.Handlers(r, nil)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = q.Stop(context.Background()) })
	return h
}

// stepSender is the hub as the handoff step sends through it (as the
// gateway wires it).
type stepSender struct{ h *Hub }

func (s stepSender) Send(ctx context.Context, msg *handoff.Message, origin handoffstep.Origin) (*handoffstep.Sent, error) {
	st, _, err := s.h.Send(ctx, msg, Origin{ContextID: origin.ContextID, Owner: origin.Owner})
	if err != nil {
		return nil, err
	}
	return &handoffstep.Sent{MessageID: st.MessageID, TaskID: st.TaskID, Status: string(st.Status), Recipients: st.Recipients}, nil
}

// admin sees every owner's messages.
var admin = access.Caller{Owner: access.Operator, Admin: true}

// send sends a message of type t with data to the recipients.
func send(t *testing.T, h *Hub, to string, typ handoff.Type, data any, edit func(*handoff.Message)) *Status {
	t.Helper()
	msg, err := handoff.New(time.Now(), "tester", strings.Split(to, ","), typ, data, handoff.Origin{})
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(msg)
	}
	st, _, err := h.Send(t.Context(), msg, Origin{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// wait polls message id until it is final.
func wait(t *testing.T, h *Hub, id string) *Status {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		st, err := h.Get(t.Context(), admin, id)
		if err != nil {
			t.Fatal(err)
		}
		if st.Status.Final() {
			return st
		}
	}
	t.Fatalf("message %s did not finish", id)
	return nil
}

func resultText(t *testing.T, st *Status) string {
	t.Helper()
	var r Result
	if err := json.Unmarshal(st.Result, &r); err != nil {
		t.Fatalf("result %s: %v", st.Result, err)
	}
	return r.Agent + ": " + r.Text
}

// TestPool: messages to a pool go round-robin to the agents that accept
// their type.
func TestPool(t *testing.T) {
	h := newHub(t)
	got := map[string]int{}
	for i := range 4 {
		st := send(t, h, "a1,a2,logger", handoff.Notification, map[string]any{"event_type": "build", "message": fmt.Sprint(i)}, nil)
		done := wait(t, h, st.MessageID)
		if done.Status != queue.StatusCompleted {
			t.Fatalf("%+v", done)
		}
		// The status times a run: queued, started, finished, in order.
		if done.StartedAt.IsZero() || done.StartedAt.Before(done.CreatedAt) || done.FinishedAt.Before(done.StartedAt) {
			t.Errorf("created %s, started %s, finished %s", done.CreatedAt, done.StartedAt, done.FinishedAt)
		}
		if raw, _ := json.Marshal(done); !strings.Contains(string(raw), `"started_at":`) {
			t.Errorf("no started_at in %s", raw)
		}
		got[strings.SplitN(resultText(t, done), ":", 2)[0]]++
	}
	if got["a1"] != 2 || got["a2"] != 2 {
		t.Fatalf("the pool took %v, want 2 each of a1 and a2 (logger does not accept NOTIFICATION)", got)
	}
}

// TestRetryEscalateFallback: a recipient that keeps failing is retried
// retry_count times, then the message goes to escalate_to; without one,
// fallback_action's agent runs it; without that, it is DEAD.
func TestRetryEscalateFallback(t *testing.T) {
	h := newHub(t)
	retry := 1
	data := map[string]any{"task_description": "rotate keys"}
	esc := send(t, h, "flaky", handoff.TaskTransfer, data, func(m *handoff.Message) {
		m.Instructions.FailureHandling = &handoff.FailureHandlingStrategy{RetryCount: &retry, EscalateTo: "backup"}
	})
	done := wait(t, h, esc.MessageID)
	if done.Status != queue.StatusFailed || done.Attempts != 2 || done.EscalatedTo == "" || !strings.Contains(done.Error, "UPSTREAM_NOT_CONFIGURED") {
		t.Fatalf("escalated message: %+v", done)
	}
	if got := resultText(t, wait(t, h, done.EscalatedTo)); got != "backup: backup took rotate keys (ESCALATION of "+esc.MessageID+")" {
		t.Fatalf("the escalation: %q", got)
	}
	fb := send(t, h, "flaky", handoff.TaskTransfer, data, func(m *handoff.Message) {
		m.Instructions.FailureHandling = &handoff.FailureHandlingStrategy{RetryCount: &retry, FallbackAction: "logger"}
	})
	done = wait(t, h, fb.MessageID)
	if done.Status != queue.StatusFailed || !done.FallbackRan || resultText(t, done) != "logger: logged "+fb.MessageID {
		t.Fatalf("fallback: %+v %s", done, done.Result)
	}
	dead := send(t, h, "flaky", handoff.TaskTransfer, data, nil)
	if done = wait(t, h, dead.MessageID); done.Status != queue.StatusDead || done.Attempts != 1 {
		t.Fatalf("no retries, no escalation, no fallback: %+v", done)
	}
}

// TestSendRefuses: what is refused before anything is queued.
func TestSendRefuses(t *testing.T) {
	h := newHub(t)
	past := time.Now().Add(-time.Minute).UTC()
	tests := []struct {
		name, to string
		typ      handoff.Type
		data     any
		edit     func(*handoff.Message)
		code     string
		want     string
	}{
		{"unknown agent", "nobody", handoff.Notification, map[string]any{"event_type": "x", "message": "y"}, nil,
			apierr.CodeAgentNotFound, `hand-off recipient "nobody" is not an agent of this gateway`},
		{"type not accepted", "logger", handoff.Notification, map[string]any{"event_type": "x", "message": "y"}, nil,
			apierr.CodeBadRequest, `agent "logger" does not accept NOTIFICATION hand-offs (it accepts none)`},
		{"the type's schema", "a1", handoff.Notification, map[string]any{"event_type": "x"}, nil,
			apierr.CodeInvalidHandoff, "the hand-off message breaks its schema: /payload/data/message: required property is missing"},
		{"the agent's own schema", "strict", handoff.Notification, map[string]any{"event_type": "x", "message": "y", "ticket": "T-x"}, nil,
			apierr.CodeInvalidHandoff, "/payload/data/ticket"},
		{"expired", "a1", handoff.Notification, map[string]any{"event_type": "x", "message": "y"},
			func(m *handoff.Message) { m.Metadata.ExpirationTime = &past }, apierr.CodeBadRequest, "expired at"},
		{"escalation to nobody", "a1", handoff.Notification, map[string]any{"event_type": "x", "message": "y"},
			func(m *handoff.Message) {
				m.Instructions.FailureHandling = &handoff.FailureHandlingStrategy{EscalateTo: "nobody"}
			}, apierr.CodeAgentNotFound, `"nobody"`},
		{"escalation to an agent that takes no ESCALATION", "a1", handoff.Notification, map[string]any{"event_type": "x", "message": "y"},
			func(m *handoff.Message) {
				m.Instructions.FailureHandling = &handoff.FailureHandlingStrategy{EscalateTo: "a2"}
			}, apierr.CodeBadRequest, `escalate_to: agent "a2" does not accept ESCALATION hand-offs (it accepts NOTIFICATION): an escalation is a new ESCALATION message`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msg, err := handoff.New(time.Now(), "tester", handoff.Recipients{tc.to}, tc.typ, tc.data, handoff.Origin{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.edit != nil {
				tc.edit(msg)
			}
			_, _, err = h.Send(t.Context(), msg, Origin{})
			var e *apierr.Error
			if !errors.As(err, &e) || e.Code != tc.code || !strings.Contains(e.Message, tc.want) {
				t.Fatalf("err %v, want %s containing %q", err, tc.code, tc.want)
			}
		})
	}
}
