package schedule

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/dbconn"
	"github.com/agentgw/agentgw/store"
)

// testHeartbeat is the heartbeat of the lease tests.
const testHeartbeat = 200 * time.Millisecond

// The helper process of TestRunTakenOverAfterHeartbeats: the database,
// and the file its runner writes when the run started.
const (
	leaseHelperDBEnv   = "AGENTGW_SCHEDULE_HELPER_DB"
	leaseHelperMarkEnv = "AGENTGW_SCHEDULE_HELPER_MARK"
)

// TestRunTakenOverAfterHeartbeats: a run whose process is killed (-9)
// in the middle of it, under the default timeout (10 minutes), is
// recorded interrupted after a few heartbeats, not after its timeout plus
// a minute: on PostgreSQL by a replica already running, on SQLite by the
// process restarted. It is not run again (a schedule's next time is its
// retry). The bound asserted (20 s for a 200 ms heartbeat) is a guard,
// far from both the expected second and the old 11 minutes.
func TestRunTakenOverAfterHeartbeats(t *testing.T) {
	if db := os.Getenv(leaseHelperDBEnv); db != "" {
		mark := os.Getenv(leaseHelperMarkEnv)
		var once sync.Once
		s := newScheduler(t, openStore(t, db, Options{}), Config{Heartbeat: testHeartbeat, Replica: "doomed",
			Runner: func(context.Context, Schedule, time.Time) (json.RawMessage, error) {
				once.Do(func() {
					if err := os.WriteFile(mark, nil, 0o600); err != nil {
						t.Error(err)
					}
				})
				select {} // hang until killed
			}})
		if err := s.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		select {}
	}
	if testing.Short() {
		t.Skip("starts and kills a second process")
	}
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		st := openStore(t, db, Options{})
		var rec recorder
		s := newScheduler(t, st, Config{Heartbeat: testHeartbeat, Runner: rec.runner("survivor")})
		sc := create(t, st, Schedule{Name: "nightly", Spec: every("1h"), Enabled: true})
		// Due now: the process to kill takes it.
		if _, err := st.pool.Exec(ctx, `UPDATE schedules SET next_run = ? WHERE id = ?`, unixNano(time.Now()), sc.ID); err != nil {
			t.Fatal(err)
		}
		mark := filepath.Join(t.TempDir(), "running")
		cmd := exec.Command(os.Args[0], "-test.run=^TestRunTakenOverAfterHeartbeats$", "-test.count=1")
		cmd.Env = append(os.Environ(), leaseHelperDBEnv+"="+db, leaseHelperMarkEnv+"="+mark)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		deadline := time.Now().Add(time.Minute)
		for {
			if _, err := os.Stat(mark); err == nil {
				break
			}
			select {
			case err := <-exited:
				t.Fatalf("the second process ended before its run started: %v\n%s", err, out.String())
			case <-time.After(5 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatal("the second process did not start the run within a minute")
			}
		}
		postgres := store.IsPostgresURL(db)
		if postgres {
			if err := s.Start(ctx); err != nil { // a replica running beside the one that dies
				t.Fatal(err)
			}
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-exited
		killed := time.Now()
		if !postgres {
			if err := s.Start(ctx); err != nil { // the process restarted
				t.Fatal(err)
			}
		}
		for {
			runs, err := st.Runs(ctx, sc.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != 1 || runs[0].Replica != "doomed" {
				t.Fatalf("runs: %+v", runs)
			}
			if r := runs[0]; r.Status != StatusRunning {
				if r.Status != StatusFailed || !strings.HasPrefix(r.Error, "interrupted") || len(rec.all()) != 0 {
					t.Errorf("the killed run: %+v; run again %d times", r, len(rec.all()))
				}
				t.Logf("recorded interrupted %s after the kill", time.Since(killed).Round(time.Millisecond))
				return
			}
			if time.Since(killed) > 20*time.Second {
				t.Fatalf("still RUNNING 20s after its process was killed (heartbeat %s): %+v", testHeartbeat, runs[0])
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

func (f *failingConn) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	if strings.Contains(query, f.match) && f.fail.Add(-1) >= 0 {
		f.seen.Add(1)
		return 0, errors.New("failed to connect: connection refused (a test's outage)")
	}
	return f.Conn.Exec(ctx, query, args...)
}

// TestOutcomeSurvivesAnOutage: the database fails the first writes of a
// finished run's outcome (a brief outage); the outcome is written once it
// answers, not lost (and later recorded as interrupted).
func TestOutcomeSurvivesAnOutage(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		st := openStore(t, db, Options{})
		var rec recorder
		s := newScheduler(t, st, Config{Heartbeat: testHeartbeat, Runner: rec.runner("a")})
		sc := create(t, st, Schedule{Name: "report", Spec: every("1h"), Enabled: true})
		f := &failingConn{Conn: st.pool, match: "finished_at = ?, result = ?"}
		f.fail.Store(5)
		st.pool = f
		run, err := s.RunNow(ctx, sc.ID)
		if err != nil {
			t.Fatal(err)
		}
		waitRuns(t, s, []Run{run})
		// Past the lease a lost outcome would have had, the sweep recording
		// the run interrupted instead.
		time.Sleep(3 * MissedHeartbeats * testHeartbeat)
		if _, err := s.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		got, err := st.Run(ctx, run.ID)
		if err != nil || got.Status != StatusSuccess || string(got.Result) != `{"n":1}` || len(rec.all()) != 1 {
			t.Errorf("the run: %+v, %v; %d calls", got, err, len(rec.all()))
		}
		if f.seen.Load() != 5 {
			t.Errorf("%d writes failed, want 5", f.seen.Load())
		}
	})
}
