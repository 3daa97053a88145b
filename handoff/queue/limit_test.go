package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/dbconn"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/store/pgstore"
	"github.com/agentgw/agentgw/store/sqlitestore"
)

// pingPong is a handler of two agents that hand a message to each other
// for ever: each run queues the next message of the task, one hop further,
// as the hub does for a message an agent sends while handling one.
func pingPong(q *atomic.Pointer[Queue], seen *atomic.Int64) Handler {
	return func(ctx context.Context, env Envelope) (json.RawMessage, error) {
		seen.Add(1)
		next := env
		next.ID = fmt.Sprintf("%s-%d", env.TaskID, env.Hops+1)
		next.Recipient = map[string]string{"a": "b", "b": "a"}[env.Recipient]
		next.Hops = env.Hops + 1
		if _, _, err := q.Load().Enqueue(ctx, next); err != nil {
			return nil, err
		}
		return json.RawMessage(`{}`), nil
	}
}

// taskSettled waits until task of q holds want messages, every one final,
// and returns them.
func taskSettled(t *testing.T, q *Queue, task string, want int) []Record {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		recs, err := q.Task(context.Background(), task)
		if err != nil {
			t.Fatal(err)
		}
		final := 0
		for _, r := range recs {
			if r.Status.Final() {
				final++
			}
		}
		if len(recs) >= want && final == len(recs) {
			return recs
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s: %d messages, %d final, after a minute", task, len(recs), final)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestPingPongStopsAtMaxHops (issue 24, item 5): two agents handing a
// message to each other stop at handoffs.maxHops: the store holds exactly
// MaxHops messages that ran and one DEAD with HANDOFF_LIMIT, and no more
// after a while nor after a restart.
func TestPingPongStopsAtMaxHops(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		var qp atomic.Pointer[Queue]
		var runs, limited atomic.Int64
		cfg := Config{Handler: pingPong(&qp, &runs), MaxHops: 4, OnLimit: func(Envelope) { limited.Add(1) }}
		q := openQueue(t, db, cfg)
		qp.Store(q)
		start(t, q)
		enqueue(t, q, Envelope{ID: "t1-1", TaskID: "t1", Recipient: "a", Owner: "token:a"})
		recs := taskSettled(t, q, "t1", 5)
		time.Sleep(200 * time.Millisecond) // nothing more comes
		if recs, _ = q.Task(context.Background(), "t1"); len(recs) != 5 {
			t.Fatalf("task t1 holds %d messages, want 5 (4 hops and the one refused): %+v", len(recs), recs)
		}
		for i, r := range recs[:4] {
			if r.Status != StatusCompleted || r.Hops != i+1 || r.Owner != "token:a" {
				t.Errorf("message %d: %s hops %d owner %q", i, r.Status, r.Hops, r.Owner)
			}
		}
		last := recs[4]
		if last.Status != StatusDead || last.Code != CodeLimit || last.Attempts != 0 || last.Owner != "token:a" ||
			!strings.Contains(last.Error, "handoffs.maxHops is 4") || last.FinishedAt.IsZero() {
			t.Errorf("the message past the bound: %+v", last)
		}
		if runs.Load() != 4 || limited.Load() != 1 {
			t.Errorf("%d runs, %d limited; want 4 and 1", runs.Load(), limited.Load())
		}
		// A restart runs nothing more: the bound is in the store.
		if err := q.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		q2 := openQueue(t, db, cfg)
		qp.Store(q2)
		start(t, q2)
		time.Sleep(300 * time.Millisecond)
		if recs, _ := q2.Task(context.Background(), "t1"); len(recs) != 5 || runs.Load() != 4 {
			t.Errorf("after a restart: %d messages, %d runs", len(recs), runs.Load())
		}
	})
}

// TestMaxMessagesPerTask: a task holds at most MaxMessagesPerTask messages
// that run, whatever their hops, counted per owner: another owner's
// messages of the same task id neither count nor are counted.
func TestMaxMessagesPerTask(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		var qp atomic.Pointer[Queue]
		var runs atomic.Int64
		cfg := Config{Handler: pingPong(&qp, &runs), MaxHops: -1, MaxMessagesPerTask: 6}
		q := openQueue(t, db, cfg)
		qp.Store(q)
		// Another owner fills the same task id first: it does not count.
		for i := range 6 {
			enqueue(t, q, Envelope{ID: fmt.Sprintf("other-%d", i), TaskID: "t2", Recipient: "x", Owner: "token:b",
				ExpiresAt: time.Unix(1, 0)})
		}
		start(t, q)
		enqueue(t, q, Envelope{ID: "t2-1", TaskID: "t2", Recipient: "a", Owner: "token:a"})
		recs := taskSettled(t, q, "t2", 6+7)
		time.Sleep(200 * time.Millisecond)
		recs, _ = q.Task(context.Background(), "t2")
		var mine []Record
		for _, r := range recs {
			if r.Owner == "token:a" {
				mine = append(mine, r)
			}
		}
		if len(mine) != 7 {
			t.Fatalf("owner a's task holds %d messages, want 7 (6 and the one refused)", len(mine))
		}
		for _, r := range mine[:6] {
			if r.Status != StatusCompleted {
				t.Errorf("%s: %s", r.ID, r.Status)
			}
		}
		if last := mine[6]; last.Status != StatusDead || last.Code != CodeLimit ||
			!strings.Contains(last.Error, "handoffs.maxMessagesPerTask is 6") {
			t.Errorf("the message past the bound: %+v", last)
		}
		if runs.Load() != 6 {
			t.Errorf("%d runs, want 6", runs.Load())
		}
	})
}

// TestOwnerKept: a message's owner is stored and read back; a message
// naming none is the operator's; an escalation is its message's owner's,
// one hop further.
func TestOwnerKept(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		q := openQueue(t, db, Config{Handler: func(context.Context, Envelope) (json.RawMessage, error) {
			return nil, fmt.Errorf("fails")
		}})
		if rec := enqueue(t, q, Envelope{ID: "op", TaskID: "t"}); rec.Owner != "operator" || rec.Hops != 1 {
			t.Errorf("no owner: %+v", rec)
		}
		enqueue(t, q, Envelope{ID: "m", TaskID: "t", Owner: "token:a", Hops: 2, EscalateTo: "boss"})
		start(t, q)
		rec := waitFinal(t, q, "m")
		esc := waitFinal(t, q, rec.EscalatedTo)
		if esc.Owner != "token:a" || esc.Hops != 3 || esc.TaskID != "t" {
			t.Errorf("escalation: %+v", esc)
		}
	})
}

// TestEscalationIDTaken: an escalation's id is derived from its message's;
// another owner's message queued first with that id does not become the
// escalation (nor is it changed): the message goes on to DEAD.
func TestEscalationIDTaken(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		q := openQueue(t, db, Config{Handler: func(context.Context, Envelope) (json.RawMessage, error) {
			return nil, fmt.Errorf("fails")
		}})
		squat := enqueue(t, q, Envelope{ID: EscalationID("m"), TaskID: "t", Owner: "token:b", Recipient: "x",
			ExpiresAt: time.Unix(1, 0)})
		enqueue(t, q, Envelope{ID: "m", TaskID: "t", Owner: "token:a", EscalateTo: "boss"})
		start(t, q)
		rec := waitFinal(t, q, "m")
		if rec.Status != StatusDead || rec.EscalatedTo != "" || !strings.Contains(rec.Error, "is taken by another message") {
			t.Errorf("message: %+v", rec)
		}
		got := waitFinal(t, q, squat.ID)
		if got.Owner != "token:b" || got.EscalatedFrom != "" || got.Recipient != "x" {
			t.Errorf("the other owner's message: %+v", got)
		}
	})
}

// TestMigrationKeepsOldMessages: a database of the steps before owners
// (versions 1 and 2) keeps its messages when the queue opens it: they are
// the operator's (only admins see them), at hop 1, and count against
// their task's bound.
func TestMigrationKeepsOldMessages(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		insert := `INSERT INTO handoff_messages (id, task_id, priority, status, created_at, updated_at)
			VALUES ('old', 'busy', 2, 'COMPLETED', 1, 1)`
		if store.IsPostgresURL(db) {
			s, err := pgstore.Open(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			old := schema
			old.Postgres = old.Postgres[:2]
			if err := old.MigratePostgres(ctx, s.Pool(), dbconn.MigrateOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Pool().Exec(ctx, insert); err != nil {
				t.Fatal(err)
			}
			s.Close()
		} else {
			s, err := sqlitestore.Open(db)
			if err != nil {
				t.Fatal(err)
			}
			old := schema
			old.SQLite = old.SQLite[:2]
			if err := old.MigrateSQLite(ctx, s.DB(), dbconn.MigrateOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.DB().Exec(insert); err != nil {
				t.Fatal(err)
			}
			_ = s.Close()
		}
		q := openQueue(t, db, Config{MaxMessagesPerTask: 1, Handler: func(context.Context, Envelope) (json.RawMessage, error) {
			return nil, nil
		}})
		rec, err := q.Get(ctx, "old")
		if err != nil || rec.Owner != "operator" || rec.Hops != 1 || rec.Status != StatusCompleted {
			t.Fatalf("the old message: %+v %v", rec, err)
		}
		if rec := enqueue(t, q, Envelope{ID: "new", TaskID: "busy"}); rec.Status != StatusDead || rec.Code != CodeLimit {
			t.Errorf("a message in the old task past its bound: %+v", rec)
		}
	})
}
