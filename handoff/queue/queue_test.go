package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/agentgw/agentgw/internal/dbconn"
	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/internal/testclock"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/store/pgstore"
	"github.com/agentgw/agentgw/store/sqlitestore"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// backends are the databases every test runs over. newDB makes a fresh
// database and returns its name: a SQLite file's path or a Postgres URL
// (a schema of its own); open opens a queue on a database by its name.
var backends = []struct {
	name  string
	newDB func(t *testing.T) string
}{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "queue.db") }},
	{"postgres", func(t *testing.T) string { return pgtest.Schema(t) }},
}

// eachBackend runs test over each backend, on a fresh database.
func eachBackend(t *testing.T, test func(t *testing.T, db string)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b.newDB(t)) })
	}
}

// testConfig is cfg with short waits: tests do not wait seconds for a
// poll or a retry.
func testConfig(t testing.TB, cfg Config) Config {
	if cfg.PollInterval == 0 {
		cfg.PollInterval = 20 * time.Millisecond
	}
	if cfg.Backoff == nil {
		cfg.Backoff = func(int) time.Duration { return 10 * time.Millisecond }
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return cfg
}

// openQueue opens a queue on database db through the store, as the
// gateway does; the queue stops and the store closes when the test ends.
// It does not start the queue.
func openQueue(t testing.TB, db string, cfg Config) *Queue {
	t.Helper()
	q, err := tryOpenQueue(t, db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// tryOpenQueue is openQueue returning its error, for goroutines other
// than the test's.
func tryOpenQueue(t testing.TB, db string, cfg Config) (*Queue, error) {
	ctx := context.Background()
	cfg = testConfig(t, cfg)
	var q *Queue
	if store.IsPostgresURL(db) {
		s, err := pgstore.Open(ctx, db)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { _ = s.Close() })
		if q, err = NewPostgres(ctx, s.Pool(), cfg); err != nil {
			return nil, err
		}
	} else {
		s, err := sqlitestore.Open(db)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { _ = s.Close() })
		if q, err = NewSQLite(ctx, s.DB(), cfg); err != nil {
			return nil, err
		}
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := q.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return q, nil
}

func start(t testing.TB, q *Queue) {
	t.Helper()
	if err := q.Start(context.Background(), Handlers{}); err != nil {
		t.Fatal(err)
	}
}

// startAwake starts q with River's client running, as a queue that finds
// work when it starts does (one with nothing to do starts dormant).
func startAwake(t testing.TB, q *Queue) {
	t.Helper()
	start(t, q)
	q.riverMu.Lock()
	defer q.riverMu.Unlock()
	if !q.riverOn {
		if err := q.startRiver(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

func enqueue(t testing.TB, q *Queue, env Envelope) Record {
	t.Helper()
	rec, fresh, err := q.Enqueue(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	if !fresh {
		t.Fatalf("Enqueue(%s): not fresh", env.ID)
	}
	return rec
}

// waitFinal polls message id until it is in a final status and returns
// its record. The minute is a guard against a hang, not a timing
// assertion.
func waitFinal(t testing.TB, q *Queue, id string) Record {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		rec, err := q.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Status.Final() {
			return rec
		}
		if time.Now().After(deadline) {
			t.Fatalf("message %s still %s after a minute: %+v", id, rec.Status, rec)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// calls counts a handler's runs by message id, in order.
type calls struct {
	mu    sync.Mutex
	order []string
	n     map[string]int
}

func (c *calls) add(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.order = append(c.order, id)
	c.n[id]++
	return c.n[id]
}

func (c *calls) count(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[id]
}

func (c *calls) sequence() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.order)
}

func TestRunCompletes(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		var c calls
		q := openQueue(t, db, Config{Handler: func(ctx context.Context, env Envelope) (json.RawMessage, error) {
			c.add(env.ID)
			return json.RawMessage(fmt.Sprintf(`{"echo":%s,"to":%q}`, env.Payload, env.Recipient)), nil
		}})
		env := Envelope{ID: "m1", TaskID: "t1", CorrelationID: "c1", Recipient: "security",
			Priority: PriorityHigh, Payload: json.RawMessage(`{"finding":"sql injection"}`)}
		rec := enqueue(t, q, env)
		if rec.Status != StatusQueued || rec.Priority != PriorityHigh || string(rec.Payload) != string(env.Payload) {
			t.Fatalf("queued record: %+v", rec)
		}
		start(t, q)
		rec = waitFinal(t, q, "m1")
		if rec.Status != StatusCompleted || string(rec.Result) != `{"echo":{"finding":"sql injection"},"to":"security"}` {
			t.Fatalf("record: %+v", rec)
		}
		if rec.Attempts != 1 || rec.Failures != 0 || rec.Error != "" || rec.StartedAt.IsZero() || rec.FinishedAt.IsZero() {
			t.Errorf("record: %+v", rec)
		}
		task, err := q.Task(context.Background(), "t1")
		if err != nil || len(task) != 1 || task[0].ID != "m1" || task[0].Status != StatusCompleted {
			t.Errorf("Task(t1) = %+v, %v", task, err)
		}
		if _, err := q.Get(context.Background(), "nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(nope): %v", err)
		}
	})
}

func TestMarkDelivered(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		q := openQueue(t, db, Config{Handler: func(ctx context.Context, env Envelope) (json.RawMessage, error) {
			MarkDelivered(ctx)
			return json.RawMessage(`{"remote_status":"QUEUED"}`), nil
		}})
		enqueue(t, q, Envelope{ID: "fwd"})
		start(t, q)
		if rec := waitFinal(t, q, "fwd"); rec.Status != StatusDelivered || string(rec.Result) != `{"remote_status":"QUEUED"}` {
			t.Fatalf("record: %+v", rec)
		}
	})
}

// TestDuplicates: a message id seen before is not queued or run again,
// whether it comes again before the run, concurrently, or after it; each
// Enqueue answers with the one record. A completed message is not run
// again even when River hands its job out again.
func TestDuplicates(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		var c calls
		q := openQueue(t, db, Config{Workers: 1, Handler: func(ctx context.Context, env Envelope) (json.RawMessage, error) {
			return json.RawMessage(fmt.Sprint(c.add(env.ID))), nil
		}})
		ctx := context.Background()
		first := enqueue(t, q, Envelope{ID: "dup", Payload: json.RawMessage(`"first"`)})
		var wg sync.WaitGroup
		var mu sync.Mutex
		fresh := 0
		for range 8 {
			wg.Go(func() {
				rec, f, err := q.Enqueue(ctx, Envelope{ID: "dup", Payload: json.RawMessage(`"again"`)})
				if err != nil || rec.Seq != first.Seq || string(rec.Payload) != `"first"` {
					t.Errorf("Enqueue(dup) again = %+v, %v", rec, err)
				}
				if f {
					mu.Lock()
					fresh++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if fresh != 0 {
			t.Errorf("%d duplicate Enqueues said fresh", fresh)
		}
		start(t, q)
		done := waitFinal(t, q, "dup")
		rec, f, err := q.Enqueue(ctx, Envelope{ID: "dup"})
		if err != nil || f || rec.Status != StatusCompleted || string(rec.Result) != "1" {
			t.Fatalf("Enqueue after the run = %+v, %v, %v", rec, f, err)
		}
		// River delivering dup's job again (as after a rescue) runs
		// nothing: the record is final. With one worker, "after", queued
		// later at a lower priority, completes after that job ran.
		err = q.b.inTx(ctx, func(_ dbconn.Conn, insert jobInserter) error {
			_, err := insertJob(ctx, insert, deliverArgs{ID: "dup"}, &river.InsertOpts{Queue: riverQueue, Priority: 1})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		enqueue(t, q, Envelope{ID: "after", Priority: PriorityLow})
		waitFinal(t, q, "after")
		if n := c.count("dup"); n != 1 || done.Attempts != 1 {
			t.Errorf("dup ran %d times, %d attempts", n, done.Attempts)
		}
	})
}

// TestConcurrentFirstEnqueue: of several Enqueues of one new id at once,
// exactly one is fresh.
func TestConcurrentFirstEnqueue(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		q := openQueue(t, db, Config{Handler: func(context.Context, Envelope) (json.RawMessage, error) { return nil, nil }})
		var wg sync.WaitGroup
		var mu sync.Mutex
		fresh := 0
		for range 8 {
			wg.Go(func() {
				_, f, err := q.Enqueue(context.Background(), Envelope{ID: "race"})
				if err != nil {
					t.Error(err)
				}
				if f {
					mu.Lock()
					fresh++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if fresh != 1 {
			t.Errorf("%d Enqueues of a new id were fresh, want 1", fresh)
		}
	})
}

// TestExpiry: a message that would start at or after its expiry is
// EXPIRED and never run, on its first run or on a retry. The clock is a
// fake one, so that what has expired does not depend on the machine's
// speed.
func TestExpiry(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		clock := testclock.New(time.Now())
		var c calls
		q := openQueue(t, db, Config{Now: clock.Now, Handler: func(ctx context.Context, env Envelope) (json.RawMessage, error) {
			c.add(env.ID)
			if env.ID == "fails-then-expires" {
				clock.Advance(time.Hour) // it is past its expiry when it would retry
				return nil, errors.New("recipient busy")
			}
			return nil, nil
		}})
		enqueue(t, q, Envelope{ID: "stale", ExpiresAt: clock.Now().Add(time.Minute)})
		enqueue(t, q, Envelope{ID: "fresh", ExpiresAt: clock.Now().Add(24 * time.Hour)})
		enqueue(t, q, Envelope{ID: "forever"})
		clock.Advance(2 * time.Minute)
		start(t, q)
		if rec := waitFinal(t, q, "stale"); rec.Status != StatusExpired || rec.Attempts != 0 || rec.Error == "" {
			t.Errorf("stale: %+v", rec)
		}
		for _, id := range []string{"fresh", "forever"} {
			if rec := waitFinal(t, q, id); rec.Status != StatusCompleted {
				t.Errorf("%s: %+v", id, rec)
			}
		}
		enqueue(t, q, Envelope{ID: "fails-then-expires", RetryCount: 3, ExpiresAt: clock.Now().Add(time.Minute)})
		rec := waitFinal(t, q, "fails-then-expires")
		if rec.Status != StatusExpired || rec.Attempts != 1 || rec.Failures != 1 {
			t.Errorf("fails-then-expires: %+v", rec)
		}
		if c.count("stale") != 0 || c.count("fails-then-expires") != 1 {
			t.Errorf("runs: %v", c.sequence())
		}
	})
}

// TestRetryEscalateFallbackDead: a failing message is tried 1+RetryCount
// times, then escalated to its EscalateTo (a new message of the same
// task); the escalation, failing too, runs its fallback; a message with
// neither, or whose fallback fails, is DEAD.
func TestRetryEscalateFallbackDead(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		var c calls
		var fallbacks calls
		q := openQueue(t, db, Config{
			Handler: func(ctx context.Context, env Envelope) (json.RawMessage, error) {
				n := c.add(env.ID)
				return nil, fmt.Errorf("%s is down (run %d)", env.Recipient, n)
			},
			Fallback: func(ctx context.Context, env Envelope, lastErr error) (json.RawMessage, error) {
				fallbacks.add(env.ID)
				if env.FallbackAction == "broken" {
					return nil, errors.New("the fallback is broken too")
				}
				return json.Marshal(map[string]string{"action": env.FallbackAction, "after": lastErr.Error()})
			},
		})
		start(t, q)
		enqueue(t, q, Envelope{ID: "review", TaskID: "task", Recipient: "reviewer", RetryCount: 2,
			EscalateTo: "security", FallbackAction: "notify_user"})
		enqueue(t, q, Envelope{ID: "plain", TaskID: "other", Recipient: "reviewer", RetryCount: 1})
		enqueue(t, q, Envelope{ID: "broken", TaskID: "other", Recipient: "reviewer", FallbackAction: "broken"})

		rec := waitFinal(t, q, "review")
		esc := EscalationID("review")
		if rec.Status != StatusFailed || rec.Attempts != 3 || rec.Failures != 3 || rec.EscalatedTo != esc ||
			rec.Error != "reviewer is down (run 3)" {
			t.Errorf("review: %+v", rec)
		}
		next := waitFinal(t, q, esc)
		if next.Status != StatusFailed || !next.FallbackRan || next.Recipient != "security" || next.EscalateTo != "" ||
			next.EscalatedFrom != "review" || next.Attempts != 3 || next.TaskID != "task" ||
			string(next.Result) != `{"action":"notify_user","after":"security is down (run 3)"}` {
			t.Errorf("escalation: %+v", next)
		}
		task, err := q.Task(context.Background(), "task")
		if err != nil || len(task) != 2 || task[0].ID != "review" || task[1].ID != esc {
			t.Errorf("Task(task) = %+v, %v", task, err)
		}
		if rec := waitFinal(t, q, "plain"); rec.Status != StatusDead || rec.Attempts != 2 || rec.Error != "reviewer is down (run 2)" {
			t.Errorf("plain: %+v", rec)
		}
		rec = waitFinal(t, q, "broken")
		if rec.Status != StatusDead || rec.Attempts != 1 || rec.Error != "reviewer is down (run 1); fallback broken failed: the fallback is broken too" {
			t.Errorf("broken: %+v", rec)
		}
		if got := fallbacks.sequence(); !slices.Equal(slices.Sorted(slices.Values(got)), []string{"broken", esc}) {
			t.Errorf("fallbacks ran for %v", got)
		}
	})
}

// TestEscalateHook: the caller decides what escalation means; a hook that
// declines, or fails, leads to the fallback.
func TestEscalateHook(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		q := openQueue(t, db, Config{
			Handler: func(ctx context.Context, env Envelope) (json.RawMessage, error) {
				if env.Recipient == "oncall" {
					return json.RawMessage(`"paged"`), nil
				}
				return nil, errors.New("no")
			},
			Escalate: func(ctx context.Context, env Envelope, lastErr error) (*Envelope, error) {
				switch env.EscalateTo {
				case "unknown":
					return nil, fmt.Errorf("no agent named %q", env.EscalateTo)
				case "nobody":
					return nil, nil
				}
				next, err := DefaultEscalate(ctx, env, lastErr)
				next.Recipient, next.Priority = "oncall", PriorityCritical
				return next, err
			},
			Fallback: func(ctx context.Context, env Envelope, lastErr error) (json.RawMessage, error) {
				return json.RawMessage(`"fell back"`), nil
			},
		})
		start(t, q)
		enqueue(t, q, Envelope{ID: "a", EscalateTo: "team"})
		enqueue(t, q, Envelope{ID: "b", EscalateTo: "unknown", FallbackAction: "x"})
		enqueue(t, q, Envelope{ID: "c", EscalateTo: "nobody", FallbackAction: "x"})
		if rec := waitFinal(t, q, "a"); rec.Status != StatusFailed || rec.EscalatedTo != EscalationID("a") {
			t.Errorf("a: %+v", rec)
		}
		if rec := waitFinal(t, q, EscalationID("a")); rec.Status != StatusCompleted || rec.Priority != PriorityCritical || string(rec.Result) != `"paged"` {
			t.Errorf("a's escalation: %+v", rec)
		}
		for _, id := range []string{"b", "c"} {
			if rec := waitFinal(t, q, id); rec.Status != StatusFailed || !rec.FallbackRan || rec.EscalatedTo != "" {
				t.Errorf("%s: %+v", id, rec)
			}
		}
	})
}

// TestPriorityOrder: with one worker, queued messages run highest
// priority first, and in the order queued within one priority.
func TestPriorityOrder(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		var c calls
		q := openQueue(t, db, Config{Workers: 1, Handler: func(ctx context.Context, env Envelope) (json.RawMessage, error) {
			c.add(env.ID)
			return nil, nil
		}})
		for _, env := range []Envelope{
			{ID: "low", Priority: PriorityLow},
			{ID: "medium-1", Priority: PriorityMedium},
			{ID: "critical", Priority: PriorityCritical},
			{ID: "medium-2"}, // 0: medium
			{ID: "high", Priority: PriorityHigh},
		} {
			enqueue(t, q, env)
		}
		start(t, q)
		waitFinal(t, q, "low")
		want := []string{"critical", "high", "medium-1", "medium-2", "low"}
		if got := c.sequence(); !slices.Equal(got, want) {
			t.Errorf("ran %v, want %v", got, want)
		}
	})
}

// TestStopRequeues: a Stop whose context ends cancels the running
// handler; its message goes back to the queue, not as a failure, and a
// queue opened on the same database runs it.
func TestStopRequeues(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		started := make(chan struct{})
		q := openQueue(t, db, Config{Handler: func(ctx context.Context, env Envelope) (json.RawMessage, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		}})
		enqueue(t, q, Envelope{ID: "long", RetryCount: 0})
		start(t, q)
		<-started
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // no grace: cancel the handler at once
		if err := q.Stop(ctx); err != nil {
			t.Fatalf("Stop: %v", err)
		}
		rec, err := q.Get(context.Background(), "long")
		if err != nil || rec.Status != StatusQueued || rec.Failures != 0 || rec.Attempts != 1 {
			t.Fatalf("after Stop: %+v, %v", rec, err)
		}
		var c calls
		q2 := openQueue(t, db, Config{Handler: func(ctx context.Context, env Envelope) (json.RawMessage, error) {
			c.add(env.ID)
			return json.RawMessage(`"done"`), nil
		}})
		start(t, q2)
		rec = waitFinal(t, q2, "long")
		if rec.Status != StatusCompleted || rec.Attempts != 2 || rec.Failures != 0 || c.count("long") != 1 {
			t.Errorf("after the restart: %+v, %d runs", rec, c.count("long"))
		}
	})
}

// TestPanicIsFailure: a handler that panics fails its run.
func TestPanicIsFailure(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		q := openQueue(t, db, Config{Handler: func(ctx context.Context, env Envelope) (json.RawMessage, error) {
			panic("boom")
		}})
		enqueue(t, q, Envelope{ID: "p", RetryCount: 1})
		start(t, q)
		if rec := waitFinal(t, q, "p"); rec.Status != StatusDead || rec.Failures != 2 || rec.Error != "the handler panicked: boom" {
			t.Errorf("record: %+v", rec)
		}
	})
}

func TestEnqueueRefuses(t *testing.T) {
	q := openQueue(t, filepath.Join(t.TempDir(), "q.db"), Config{Handler: func(context.Context, Envelope) (json.RawMessage, error) { return nil, nil }})
	for _, env := range []Envelope{
		{},
		{ID: "p", Priority: 5},
		{ID: "p", Priority: -1},
		{ID: "r", RetryCount: -1},
		{ID: "j", Payload: json.RawMessage(`{not json`)},
	} {
		if _, _, err := q.Enqueue(context.Background(), env); err == nil {
			t.Errorf("Enqueue(%+v) accepted", env)
		}
	}
}

func TestDefaultBackoff(t *testing.T) {
	for n, want := range map[int]time.Duration{0: time.Second, 1: time.Second, 2: 2 * time.Second, 4: 8 * time.Second,
		9: 256 * time.Second, 10: maxBackoff, 1000: maxBackoff} {
		if got := DefaultBackoff(n); got != want {
			t.Errorf("DefaultBackoff(%d) = %s, want %s", n, got, want)
		}
	}
}

// TestLeaseHoldsARun: while a run holds a message (its lease has not
// passed), River handing the message's job out again, as a rescue would,
// does not start a second run: that job is put off until the lease ends.
func TestLeaseHoldsARun(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		var c calls
		started, release := make(chan struct{}), make(chan struct{})
		q := openQueue(t, db, Config{Workers: 2, Handler: func(ctx context.Context, env Envelope) (json.RawMessage, error) {
			if c.add(env.ID) == 1 {
				close(started)
				<-release
			}
			return nil, nil
		}})
		enqueue(t, q, Envelope{ID: "held"})
		start(t, q)
		<-started
		err := q.b.inTx(ctx, func(_ dbconn.Conn, insert jobInserter) error {
			_, err := insertJob(ctx, insert, deliverArgs{ID: "held"}, &river.InsertOpts{Queue: riverQueue, Priority: 1})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		// The second job is claimed, finds the lease and is snoozed
		// (River's state scheduled).
		deadline := time.Now().Add(time.Minute)
		for {
			var n int64
			if err := q.b.conn().QueryRow(ctx, `SELECT count(*) FROM river_job WHERE state = 'scheduled'`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the second job was not put off within a minute")
			}
			time.Sleep(5 * time.Millisecond)
		}
		close(release)
		if rec := waitFinal(t, q, "held"); rec.Status != StatusCompleted || rec.Attempts != 1 || c.count("held") != 1 {
			t.Errorf("record %+v; %d runs", rec, c.count("held"))
		}
	})
}

// TestEnqueueAnswersAsQueued: a fresh message is answered as it was
// queued, QUEUED, even on a running queue whose worker takes it at once
// (the record used to be read after the commit, and a fast worker's
// RUNNING leaked into what the sender was told, and so into the text a
// hand-off step shows). Racy by nature: on the old code some of the
// messages came back RUNNING, not all.
func TestEnqueueAnswersAsQueued(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		q := openQueue(t, db, Config{Handler: func(ctx context.Context, env Envelope) (json.RawMessage, error) {
			return json.RawMessage(`{}`), nil
		}})
		start(t, q)
		for i := range 40 {
			id := fmt.Sprintf("m%d", i)
			rec := enqueue(t, q, Envelope{ID: id, TaskID: "t1", Recipient: "security", Priority: PriorityHigh,
				Payload: json.RawMessage(`{}`)})
			if rec.Status != StatusQueued {
				t.Fatalf("Enqueue(%s) answered %s, want QUEUED", id, rec.Status)
			}
		}
		for i := range 40 {
			if rec := waitFinal(t, q, fmt.Sprintf("m%d", i)); rec.Status != StatusCompleted {
				t.Errorf("m%d: %s", i, rec.Status)
			}
		}
	})
}

// TestEnqueueRecordIsTheRow: the record a fresh Enqueue answers with,
// built without reading the row back, is the record Get reads, field for
// field, for every kind of message: plain, with every field set, without
// a payload, an escalation's (EscalatedFrom), and one DEAD at a bound.
func TestEnqueueRecordIsTheRow(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		q := openQueue(t, db, Config{MaxHops: 3})
		ctx := context.Background()
		expires := time.Now().Add(time.Hour)
		cases := []struct {
			name string
			env  Envelope
			from string
		}{
			{"plain", Envelope{ID: "plain", Payload: json.RawMessage(`{"a":1}`)}, ""},
			{"every field", Envelope{ID: "full", TaskID: "t", CorrelationID: "c", Priority: PriorityCritical,
				ExpiresAt: expires, RetryCount: 2, EscalateTo: "boss", FallbackAction: "fb", Recipient: "a,b",
				Payload: json.RawMessage(`[1, 2]`), Owner: "alice", Hops: 2}, ""},
			{"no payload", Envelope{ID: "empty", Recipient: "a"}, ""},
			{"escalation", Envelope{ID: "esc", Recipient: "boss", Hops: 2}, "full"},
			{"dead at a bound", Envelope{ID: "dead", TaskID: "t", Recipient: "a", Hops: 4}, ""},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				rec, fresh, err := q.enqueue(ctx, tc.env, tc.from)
				if err != nil || !fresh {
					t.Fatalf("enqueue = %v, fresh %v", err, fresh)
				}
				got, err := q.Get(ctx, tc.env.ID)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(rec, got) {
					t.Errorf("Enqueue answered\n%+v\nthe row is\n%+v", rec, got)
				}
			})
		}
	})
}
