package queue

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentgw/agentgw/internal/dbconn"
	"github.com/agentgw/agentgw/store"
)

// testHeartbeat is the heartbeat of the lease tests: a run whose process
// died is taken over about three of them later.
const testHeartbeat = 200 * time.Millisecond

// leaseHelperEnv, set, makes TestTakeOverAfterHeartbeats the process to
// kill (see processToKill); its value is the database.
const leaseHelperEnv = "AGENTGW_QUEUE_LEASE_HELPER_DB"

// TestTakeOverAfterHeartbeats: a run whose process is killed (-9) while
// its handler runs, with the default RunTimeout (10 minutes), is taken
// over after a few heartbeats, not after RunTimeout + 1 minute: on
// PostgreSQL by a replica already running, on SQLite by the process
// restarted. It runs again once, counted as one interruption. The bound
// asserted (20 s for a 200 ms heartbeat) is a guard, far from both the
// expected second and the old 11 minutes.
func TestTakeOverAfterHeartbeats(t *testing.T) {
	if db := os.Getenv(leaseHelperEnv); db != "" {
		var once sync.Once
		mark := os.Getenv(helperMarkEnv)
		q := openQueue(t, db, Config{Heartbeat: testHeartbeat, Handler: func(ctx context.Context, env Envelope) (json.RawMessage, error) {
			once.Do(func() {
				if err := os.WriteFile(mark, []byte(env.ID), 0o600); err != nil {
					t.Error(err)
				}
			})
			select {} // hang until killed
		}})
		start(t, q)
		select {}
	}
	if testing.Short() {
		t.Skip("starts and kills a second process")
	}
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		var c calls
		handler := func(ctx context.Context, env Envelope) (json.RawMessage, error) {
			return json.RawMessage(fmt.Sprint(c.add(env.ID))), nil
		}
		q := openQueue(t, db, Config{Heartbeat: testHeartbeat, Handler: handler})
		enqueue(t, q, Envelope{ID: "long", TaskID: "t"})

		mark := filepath.Join(t.TempDir(), "running")
		cmd := exec.Command(os.Args[0], "-test.run=^TestTakeOverAfterHeartbeats$", "-test.count=1")
		cmd.Env = append(os.Environ(), leaseHelperEnv+"="+db, helperMarkEnv+"="+mark)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		if !waitForFile(mark, exited) {
			t.Fatalf("the second process ended before its handler ran: %v\n%s", <-exited, out.String())
		}
		postgres := store.IsPostgresURL(db)
		if postgres {
			start(t, q) // a replica running beside the one that dies
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-exited
		killed := time.Now()
		if !postgres {
			start(t, q) // the process restarted
		}
		deadline := killed.Add(20 * time.Second)
		for {
			rec, err := q.Get(ctx, "long")
			if err != nil {
				t.Fatal(err)
			}
			if rec.Status.Final() {
				if rec.Status != StatusCompleted || rec.Attempts != 2 || rec.Interruptions != 1 || rec.Failures != 0 || c.count("long") != 1 {
					t.Errorf("after the kill: %+v; %d runs here", rec, c.count("long"))
				}
				t.Logf("taken over and completed %s after the kill", time.Since(killed).Round(time.Millisecond))
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("still %s 20s after its process was killed (heartbeat %s): %+v", rec.Status, testHeartbeat, rec)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// failingConn fails the statements that match while fail is above zero,
// as a database that is briefly unreachable does.
type failingConn struct {
	dbconn.Conn
	match string
	fail  atomic.Int64
	seen  atomic.Int64
}

var errOutage = errors.New("failed to connect: connection refused (a test's outage)")

func (f *failingConn) hit(query string) bool {
	if !strings.Contains(query, f.match) {
		return false
	}
	if f.fail.Add(-1) >= 0 {
		f.seen.Add(1)
		return true
	}
	return false
}

func (f *failingConn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	if f.hit(query) {
		return 0, errOutage
	}
	return f.Conn.Exec(ctx, query, args...)
}

// breakPool makes the queue's statements outside transactions that
// contain match fail n times.
func breakPool(t *testing.T, q *Queue, match string, n int64) *failingConn {
	t.Helper()
	switch b := q.b.(type) {
	case *riverBackend[*sql.Tx]:
		f := &failingConn{Conn: b.pool, match: match}
		f.fail.Store(n)
		b.pool = f
		return f
	case *riverBackend[pgx.Tx]:
		f := &failingConn{Conn: b.pool, match: match}
		f.fail.Store(n)
		b.pool = f
		return f
	}
	t.Fatalf("backend %T", q.b)
	return nil
}

// TestOutcomeSurvivesAnOutage: the database fails the first writes of a
// finished run's outcome (a brief outage); the outcome is written once it
// answers, and the message is not run a second time.
func TestOutcomeSurvivesAnOutage(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		var c calls
		q := openQueue(t, db, Config{Heartbeat: testHeartbeat, RunTimeout: time.Second, RescueAfter: 2 * time.Second,
			Handler: func(ctx context.Context, env Envelope) (json.RawMessage, error) {
				return json.RawMessage(fmt.Sprint(c.add(env.ID))), nil
			}})
		f := breakPool(t, q, "result = ?", 5)
		enqueue(t, q, Envelope{ID: "outage"})
		start(t, q)
		rec := waitFinal(t, q, "outage")
		// A second run, had there been one, starts after the lease: wait
		// past it before counting.
		time.Sleep(3 * time.Second)
		rec2, err := q.Get(context.Background(), "outage")
		if err != nil {
			t.Fatal(err)
		}
		if rec.Status != StatusCompleted || string(rec.Result) != "1" || rec2.Attempts != 1 || rec2.Interruptions != 0 || c.count("outage") != 1 {
			t.Errorf("record %+v, then %+v; %d runs", rec, rec2, c.count("outage"))
		}
		if f.seen.Load() != 5 {
			t.Errorf("%d writes failed, want 5", f.seen.Load())
		}
	})
}

// TestLostLease: a run whose heartbeats do not reach the database (its
// renewals fail) while its process lives on is taken back by another
// replica and run again; when a renewal reaches the database again, it
// finds the message no longer its own, and its handler is cancelled
// (errLeaseLost), its outcome not recorded over the new run's.
func TestLostLease(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		var runs atomic.Int64
		cause := make(chan error, 1)
		handler := func(ctx context.Context, env Envelope) (json.RawMessage, error) {
			if runs.Add(1) == 1 {
				<-ctx.Done()
				cause <- context.Cause(ctx)
				return nil, ctx.Err()
			}
			return json.RawMessage(`"second"`), nil
		}
		a := openQueue(t, db, Config{Heartbeat: testHeartbeat, Handler: handler})
		b := openQueue(t, db, Config{Heartbeat: testHeartbeat, Handler: handler})
		f := breakPool(t, a, "SET lease_until = ? WHERE", 10)
		enqueue(t, a, Envelope{ID: "cut"})
		start(t, a)
		for runs.Load() == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		start(t, b)
		rec := waitFinal(t, b, "cut")
		select {
		case err := <-cause:
			if !errors.Is(err, errLeaseLost) {
				t.Errorf("the first run's context ended with %v", err)
			}
		case <-time.After(time.Minute):
			t.Fatal("the first run was not cancelled within a minute")
		}
		time.Sleep(3 * testHeartbeat) // the first run's worker records nothing
		got, err := b.Get(context.Background(), "cut")
		if err != nil {
			t.Fatal(err)
		}
		if rec.Status != StatusCompleted || string(rec.Result) != `"second"` || got.Status != StatusCompleted ||
			got.Attempts != 2 || got.Interruptions != 1 || got.Failures != 0 || runs.Load() != 2 {
			t.Errorf("record %+v, then %+v; %d runs", rec, got, runs.Load())
		}
		if f.seen.Load() == 0 {
			t.Error("no renewal failed")
		}
	})
}
