package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/agentgw/agentgw/store"
)

// fetchedByDeadProcess makes message id's River job look as River leaves
// it when the process that fetched it is killed (-9) before its worker
// claimed the message: the job running, attempted a while ago, the
// message QUEUED with no attempt. It returns the job's id.
func fetchedByDeadProcess(t *testing.T, q *Queue, db, id string, ago time.Duration) int64 {
	t.Helper()
	ctx := context.Background()
	var job int64
	if err := q.b.conn().QueryRow(ctx, `SELECT id FROM river_job WHERE kind = ? ORDER BY id DESC LIMIT 1`, jobKind).Scan(&job); err != nil {
		t.Fatalf("the job of %s: %v", id, err)
	}
	at := any(time.Now().Add(-ago))
	if !store.IsPostgresURL(db) {
		at = riverSQLiteTime(time.Now().Add(-ago))
	}
	n, err := q.b.conn().Exec(ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = ? WHERE id = ?`, at, job)
	if err != nil || n != 1 {
		t.Fatalf("marking job %d running: %d rows, %v", job, n, err)
	}
	return job
}

// riverSQLiteTime is a time as River's SQLite driver writes it.
func riverSQLiteTime(t time.Time) string {
	return t.UTC().Round(time.Millisecond).Format("2006-01-02 15:04:05.000")
}

// jobState is the state of River job id.
func jobState(t *testing.T, q *Queue, id int64) string {
	t.Helper()
	var state string
	if err := q.b.conn().QueryRow(context.Background(), `SELECT state FROM river_job WHERE id = ?`, id).Scan(&state); err != nil {
		t.Fatalf("job %d: %v", id, err)
	}
	return state
}

// messageJob is the River job that message id's record names.
func messageJob(t *testing.T, q *Queue, id string) int64 {
	t.Helper()
	var job int64
	if err := q.b.conn().QueryRow(context.Background(), `SELECT job_id FROM handoff_messages WHERE id = ?`, id).Scan(&job); err != nil {
		t.Fatalf("message %s: %v", id, err)
	}
	return job
}

// TestOrphanedJobTakenBack (issue 28, F8 of bench/soak/README.md): a
// message whose River job was fetched by a process killed before its
// worker claimed the message (QUEUED, no attempt, its job running, which
// River's rescuer takes back only after RescueAfter, 11 minutes by
// default) is taken back by the sweep, of the process restarted on
// SQLite, of a replica on PostgreSQL, about MissedHeartbeats heartbeats
// after its job was fetched, with a new job, and runs once. The old job,
// when River's rescuer hands it out later, runs nothing. The bound
// asserted (20 s for a 200 ms heartbeat) is a guard against a hang, far
// from both the expected second and the old 11 minutes.
func TestOrphanedJobTakenBack(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		var c calls
		q := openQueue(t, db, Config{Heartbeat: testHeartbeat, Handler: func(ctx context.Context, env Envelope) (json.RawMessage, error) {
			return json.RawMessage(fmt.Sprint(c.add(env.ID))), nil
		}})
		enqueue(t, q, Envelope{ID: "orphan", TaskID: "t"})
		old := fetchedByDeadProcess(t, q, db, "orphan", time.Minute)
		start(t, q)
		began := time.Now()
		deadline := began.Add(20 * time.Second)
		var rec Record
		for {
			var err error
			if rec, err = q.Get(ctx, "orphan"); err != nil {
				t.Fatal(err)
			}
			if rec.Status.Final() {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("still %s 20 s after the queue started (heartbeat %s), its job %d %s: %+v",
					rec.Status, testHeartbeat, old, jobState(t, q, old), rec)
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Logf("taken back and completed %s after the start", time.Since(began).Round(time.Millisecond))
		if rec.Status != StatusCompleted || string(rec.Result) != "1" || rec.Attempts != 1 || rec.Interruptions != 0 ||
			rec.Failures != 0 || c.count("orphan") != 1 {
			t.Fatalf("after the take-back: %+v; %d runs", rec, c.count("orphan"))
		}
		if job := messageJob(t, q, "orphan"); job == old || job == 0 {
			t.Errorf("the message's job is %d; the orphaned job was %d", job, old)
		}

		// River's rescuer hands the old job out (RescueAfter later): it
		// runs nothing, and River completes it.
		if _, err := q.b.conn().Exec(ctx, `UPDATE river_job SET state = 'available' WHERE id = ?`, old); err != nil {
			t.Fatal(err)
		}
		enqueue(t, q, Envelope{ID: "wake", TaskID: "t"}) // fetch now, not at the next poll
		waitFinal(t, q, "wake")
		for deadline := time.Now().Add(time.Minute); jobState(t, q, old) != "completed"; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the old job %d is still %s after a minute", old, jobState(t, q, old))
			}
		}
		after, err := q.Get(ctx, "orphan")
		if err != nil {
			t.Fatal(err)
		}
		if c.count("orphan") != 1 || after.Attempts != 1 || after.Status != StatusCompleted || string(after.Result) != "1" {
			t.Errorf("after the old job ran: %+v; %d runs", after, c.count("orphan"))
		}
	})
}
