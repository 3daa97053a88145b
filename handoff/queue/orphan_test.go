package queue

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentgw/agentgw/internal/dbconn"
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

// TestOrphanSweepReadsAnIndexRange: the sweep of orphaned jobs is driven
// by River's index of jobs by state and queue (an empty range when no
// job runs: what an idle or dormant process reads each heartbeat), each
// job joined to its message by the message's key. SQLite's plan is
// asserted; PostgreSQL's, which depends on its statistics, is logged.
func TestOrphanSweepReadsAnIndexRange(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		q := openQueue(t, db, Config{})
		query, args := q.orphansQuery(time.Second)
		postgres := store.IsPostgresURL(db)
		explain := "EXPLAIN QUERY PLAN "
		if postgres {
			explain = "EXPLAIN "
		}
		rs, err := q.b.conn().Query(context.Background(), explain+query, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		var plan []string
		for rs.Next() {
			var line string
			var id, parent, unused int64
			dest := []any{&id, &parent, &unused, &line}
			if postgres {
				dest = []any{&line}
			}
			if err := rs.Scan(dest...); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, line)
		}
		if err := rs.Err(); err != nil {
			t.Fatal(err)
		}
		if postgres {
			t.Logf("plan:\n%s", strings.Join(plan, "\n"))
			return
		}
		want := []string{
			"SEARCH j USING INDEX river_job_prioritized_fetching_index (state=? AND queue=?)",
			"SEARCH m USING INDEX sqlite_autoindex_handoff_messages_1 (id=?)",
		}
		if !slices.Equal(plan, want) {
			t.Errorf("plan:\n%s\nwant:\n%s", strings.Join(plan, "\n"), strings.Join(want, "\n"))
		}
	})
}

// TestOrphanSweepLeavesLiveJobs: the sweep leaves a message QUEUED whose
// job runs when the job is one this process's worker is in (fetched, its
// claim not yet made), when the job has run for less than a lease, and
// when the message was queued again less than a lease ago (a run that
// failed, whose snooze River records a moment later); it takes back one
// whose job ran for longer than a lease in another process, once.
func TestOrphanSweepLeavesLiveJobs(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		clock := time.Now()
		q := openQueue(t, db, Config{Heartbeat: time.Hour, Now: func() time.Time { return clock }})
		lease := MissedHeartbeats * time.Hour
		enqueue(t, q, Envelope{ID: "m"})
		job := fetchedByDeadProcess(t, q, db, "m", 2*lease)
		sweep := func() int {
			t.Helper()
			n, err := q.sweepOrphans(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		if n := sweep(); n != 0 {
			t.Fatalf("queued just now: %d taken back", n)
		}
		clock = clock.Add(2 * lease)
		q.working.Store(job, struct{}{})
		if n := sweep(); n != 0 {
			t.Fatalf("a job this process works on: %d taken back", n)
		}
		q.working.Delete(job)
		fetchedByDeadProcess(t, q, db, "m", lease/2)
		if n := sweep(); n != 0 {
			t.Fatalf("a job fetched less than a lease ago: %d taken back", n)
		}
		fetchedByDeadProcess(t, q, db, "m", 2*lease)
		if n := sweep(); n != 1 {
			t.Fatalf("an orphaned job: %d taken back, want 1", n)
		}
		if n := sweep(); n != 0 {
			t.Fatalf("swept again: %d taken back", n)
		}
		next := messageJob(t, q, "m")
		if next == job || next == 0 || jobState(t, q, next) != "available" || jobState(t, q, job) != "running" {
			t.Errorf("the message's job %d (%s); the old job %d (%s)", next, jobState(t, q, next), job, jobState(t, q, job))
		}
		rec, err := q.Get(ctx, "m")
		if err != nil {
			t.Fatal(err)
		}
		if rec.Status != StatusQueued || rec.Attempts != 0 || rec.Interruptions != 0 || rec.Error != "" {
			t.Errorf("record %+v", rec)
		}
	})
}

// orphanHelperEnv, set, makes TestOrphanedByKill the process to kill (see
// claimThenHang); its value is the database.
const orphanHelperEnv = "AGENTGW_QUEUE_ORPHAN_HELPER_DB"

// hangingConn hangs the statements that contain match, after writing the
// file mark once: a process stopped there, until it is killed.
type hangingConn struct {
	dbconn.Conn
	match, mark string
	once        sync.Once
}

func (h *hangingConn) QueryRow(ctx context.Context, query string, args ...any) dbconn.Row {
	if strings.Contains(query, h.match) {
		h.once.Do(func() { _ = os.WriteFile(h.mark, nil, 0o600) })
		select {}
	}
	return h.Conn.QueryRow(ctx, query, args...)
}

// claimThenHang is the process to kill: River fetches the message's job
// (the job running), and the worker's claim of the message hangs.
func claimThenHang(t *testing.T, db, mark string) {
	q := openQueue(t, db, Config{Heartbeat: testHeartbeat, Handler: func(context.Context, Envelope) (json.RawMessage, error) {
		t.Error("the handler ran in the process to kill")
		return nil, nil
	}})
	h := &hangingConn{match: "attempts = attempts + 1", mark: mark}
	switch b := q.b.(type) {
	case *riverBackend[*sql.Tx]:
		h.Conn, b.pool = b.pool, h
	case *riverBackend[pgx.Tx]:
		h.Conn, b.pool = b.pool, h
	}
	start(t, q)
	select {}
}

// TestOrphanedByKill (F8) with a real River fetch and a real kill: a
// second process (this test binary again) fetches the message's job and
// is killed (-9) before its worker claims the message, which River then
// holds QUEUED, attempts 0, its job running. The process restarted (on
// SQLite) or a replica (on PostgreSQL) runs the message, once, about
// MissedHeartbeats heartbeats later, not after RescueAfter (11 minutes).
// The bound asserted (20 s for a 200 ms heartbeat) is a guard.
func TestOrphanedByKill(t *testing.T) {
	if db := os.Getenv(orphanHelperEnv); db != "" {
		claimThenHang(t, db, os.Getenv(helperMarkEnv))
		return
	}
	if testing.Short() {
		t.Skip("starts and kills a second process")
	}
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		var c calls
		q := openQueue(t, db, Config{Heartbeat: testHeartbeat, Handler: func(ctx context.Context, env Envelope) (json.RawMessage, error) {
			return json.RawMessage(fmt.Sprint(c.add(env.ID))), nil
		}})
		enqueue(t, q, Envelope{ID: "fetched", TaskID: "t"})
		mark := filepath.Join(t.TempDir(), "claiming")
		cmd := exec.Command(os.Args[0], "-test.run=^TestOrphanedByKill$", "-test.count=1")
		cmd.Env = append(os.Environ(), orphanHelperEnv+"="+db, helperMarkEnv+"="+mark)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		if !waitForFile(mark, exited) {
			t.Fatalf("the second process ended before its claim: %v\n%s", <-exited, out.String())
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-exited
		killed := time.Now()
		var job int64
		if err := q.b.conn().QueryRow(ctx, `SELECT id FROM river_job WHERE kind = ?`, jobKind).Scan(&job); err != nil {
			t.Fatal(err)
		}
		rec, err := q.Get(ctx, "fetched")
		if err != nil || rec.Status != StatusQueued || rec.Attempts != 0 || jobState(t, q, job) != "running" {
			t.Fatalf("after the kill: job %d %s; %+v, %v", job, jobState(t, q, job), rec, err)
		}
		start(t, q) // the process restarted (SQLite), a replica (PostgreSQL)
		deadline := killed.Add(20 * time.Second)
		for {
			if rec, err = q.Get(ctx, "fetched"); err != nil {
				t.Fatal(err)
			}
			if rec.Status.Final() {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("still %s 20 s after its job's process was killed (heartbeat %s), its job %s: %+v",
					rec.Status, testHeartbeat, jobState(t, q, job), rec)
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Logf("run %s after the kill", time.Since(killed).Round(time.Millisecond))
		if rec.Status != StatusCompleted || string(rec.Result) != "1" || rec.Attempts != 1 || rec.Interruptions != 0 || c.count("fetched") != 1 {
			t.Errorf("after the kill: %+v; %d runs", rec, c.count("fetched"))
		}
	})
}

// TestOrphanedRetryKeepsBackoff (F8's note): a run that failed queued its
// message again for a retry after Backoff, but its process died before
// River recorded the job's snooze: the job is left running, the message
// QUEUED with the failure. The sweep takes it back with a new job due when
// the retry was (the failure's time plus Backoff), not at once.
func TestOrphanedRetryKeepsBackoff(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		var c calls
		q := openQueue(t, db, Config{Heartbeat: testHeartbeat, Backoff: func(int) time.Duration { return time.Hour },
			Handler: func(ctx context.Context, env Envelope) (json.RawMessage, error) {
				c.add(env.ID)
				return nil, nil
			}})
		enqueue(t, q, Envelope{ID: "retry", RetryCount: 2})
		failedAt := time.Now().Add(-time.Minute)
		if _, err := q.b.conn().Exec(ctx, `UPDATE handoff_messages SET attempts = 1, failures = 1, error = 'boom',
			updated_at = ? WHERE id = ?`, failedAt.UnixNano(), "retry"); err != nil {
			t.Fatal(err)
		}
		old := fetchedByDeadProcess(t, q, db, "retry", time.Minute)
		start(t, q)
		deadline := time.Now().Add(20 * time.Second) // a guard against a hang
		job := messageJob(t, q, "retry")
		for ; job == 0 || job == old; job = messageJob(t, q, "retry") {
			if time.Now().After(deadline) {
				t.Fatalf("not taken back 20 s after the start; job %d %s", old, jobState(t, q, old))
			}
			time.Sleep(20 * time.Millisecond)
		}
		if state := jobState(t, q, job); state != "scheduled" {
			t.Errorf("the new job %d is %s, want scheduled (the retry is due an hour after the failure)", job, state)
		}
		var due any
		if err := q.b.conn().QueryRow(ctx, `SELECT scheduled_at FROM river_job WHERE id = ?`, job).Scan(&due); err != nil {
			t.Fatal(err)
		}
		if got, want := columnTime(t, due), failedAt.Add(time.Hour); got.Sub(want).Abs() > 2*time.Millisecond {
			t.Errorf("the new job is due %v, want %v", got, want)
		}
		if n := c.count("retry"); n != 0 {
			t.Errorf("the message ran %d times before its retry was due", n)
		}
	})
}

// columnTime is a time of River's columns read back: a time.Time, or
// River's SQLite text.
func columnTime(t *testing.T, v any) time.Time {
	t.Helper()
	switch v := v.(type) {
	case time.Time:
		return v
	case string:
		at, err := time.Parse(sqliteTimeLayout, v)
		if err != nil {
			t.Fatal(err)
		}
		return at
	}
	t.Fatalf("a time of type %T: %v", v, v)
	return time.Time{}
}
