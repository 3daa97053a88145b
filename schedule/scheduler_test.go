package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/testclock"
)

// call is one call of a Runner.
type call struct {
	schedule string // name
	due      time.Time
	replica  string
}

// recorder records a Runner's calls, across replicas.
type recorder struct {
	mu    sync.Mutex
	calls []call
}

func (r *recorder) add(c call) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
	return len(r.calls)
}

func (r *recorder) all() []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]call(nil), r.calls...)
}

// runner is a Runner that records its call and then does what its
// schedule's target says: {"block": true} waits for ctx, {"fail": "why"}
// fails, {"disable": "why"} fails with a DisableError, {"panic": true} panics, {"text": "x"} returns x as it is (not
// JSON); otherwise it returns {"n": <calls so far>}.
func (r *recorder) runner(replica string) Runner {
	return func(ctx context.Context, sc Schedule, due time.Time) (json.RawMessage, error) {
		n := r.add(call{sc.Name, due, replica})
		var do struct {
			Block   bool   `json:"block"`
			Fail    string `json:"fail"`
			Panic   bool   `json:"panic"`
			Text    string `json:"text"`
			Disable string `json:"disable"`
		}
		_ = json.Unmarshal(sc.Target, &do)
		switch {
		case do.Block:
			<-ctx.Done()
			return nil, ctx.Err()
		case do.Fail != "":
			return json.RawMessage(`{"partial":true}`), errors.New(do.Fail)
		case do.Panic:
			panic("boom")
		case do.Disable != "":
			return json.RawMessage(`{"ran":false}`), fmt.Errorf("wrapped: %w", &DisableError{Reason: do.Disable})
		case do.Text != "":
			return json.RawMessage(do.Text), nil
		}
		if run, ok := RunFromContext(ctx); !ok || run.ScheduleID != sc.ID {
			return nil, fmt.Errorf("RunFromContext: %+v %v", run, ok)
		}
		return json.RawMessage(fmt.Sprintf(`{"n":%d}`, n)), nil
	}
}

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// newScheduler makes a scheduler stopped when the test ends.
func newScheduler(t testing.TB, st *Store, cfg Config) *Scheduler {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = testLogger(t)
	}
	s, err := New(st, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return s
}

// stopNow stops s, cancelling its runs at once.
func stopNow(t testing.TB, s *Scheduler) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Stop(ctx); err != nil {
		t.Errorf("Stop: %v", err)
	}
}

// runDue calls RunDue and waits for the runs it started.
func runDue(t testing.TB, s *Scheduler) []Run {
	t.Helper()
	runs, err := s.RunDue(context.Background())
	if err != nil {
		t.Fatalf("RunDue: %v", err)
	}
	return waitRuns(t, s, runs)
}

// waitRuns waits for runs to finish and returns their outcomes.
func waitRuns(t testing.TB, s *Scheduler, runs []Run) []Run {
	t.Helper()
	out := make([]Run, len(runs))
	for i, r := range runs {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		got, err := s.Wait(ctx, r.ID)
		cancel()
		if err != nil {
			t.Fatalf("Wait(%s): %v", r.ID, err)
		}
		out[i] = got
	}
	return out
}

// TestSchedulerDue: a due run is claimed, run and recorded, and the
// schedule moves on; a run not yet due is not.
func TestSchedulerDue(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		clock := testclock.New(t0)
		st := openStore(t, db, Options{Now: clock.Now})
		var rec recorder
		s := newScheduler(t, st, Config{Runner: rec.runner("a"), Now: clock.Now, Replica: "a"})
		sc := create(t, st, Schedule{Name: "minutely", Spec: every("1m"), Enabled: true})

		if runs := runDue(t, s); len(runs) != 0 {
			t.Fatalf("before it is due: %+v", runs)
		}
		clock.Advance(time.Minute)
		runs := runDue(t, s)
		if len(runs) != 1 || runs[0].Status != StatusSuccess || !runs[0].Due.Equal(t0.Add(time.Minute)) ||
			string(runs[0].Result) != `{"n":1}` || runs[0].Replica != "a" || runs[0].ID != RunID(sc.ID, t0.Add(time.Minute)) {
			t.Fatalf("due: %+v", runs)
		}
		got := get(t, st, sc.ID)
		if got.RunCount != 1 || !got.LastRun.Equal(t0.Add(time.Minute)) || !got.NextRun.Equal(t0.Add(2*time.Minute)) ||
			len(got.Runs) != 1 || got.Runs[0].Status != StatusSuccess || string(got.Runs[0].Result) != `{"n":1}` {
			t.Errorf("after the run: %+v", got)
		}
		if runs := runDue(t, s); len(runs) != 0 {
			t.Errorf("again at once: %+v", runs)
		}
		clock.Advance(59 * time.Second)
		if runs := runDue(t, s); len(runs) != 0 {
			t.Errorf("a second early: %+v", runs)
		}
		clock.Advance(time.Second)
		if runs := runDue(t, s); len(runs) != 1 || !runs[0].Due.Equal(t0.Add(2*time.Minute)) {
			t.Errorf("the second run: %+v", runs)
		}
		if n := len(rec.all()); n != 2 {
			t.Errorf("%d calls", n)
		}
	})
}

// TestSchedulerCron: a cron schedule in a time zone, day after day.
func TestSchedulerCron(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		clock := testclock.New(utc("2026-03-27T12:00:00Z"))
		st := openStore(t, db, Options{Now: clock.Now})
		var rec recorder
		s := newScheduler(t, st, Config{Runner: rec.runner("a"), Now: clock.Now})
		create(t, st, Schedule{Name: "nightly", Spec: cronSpec("0 3 * * *", "Europe/Paris"), Enabled: true})
		for range 4 * 24 {
			clock.Advance(time.Hour)
			runDue(t, s)
		}
		var dues []string
		for _, c := range rec.all() {
			dues = append(dues, c.due.Format(time.RFC3339))
		}
		// Paris moves to summer time in the night of the 29th.
		want := "2026-03-28T02:00:00Z 2026-03-29T01:00:00Z 2026-03-30T01:00:00Z 2026-03-31T01:00:00Z"
		if strings.Join(dues, " ") != want {
			t.Errorf("runs due at\n %v\nwant %s", dues, want)
		}
	})
}

// TestSchedulerMissed: after downtime, runOnce runs once for all the
// missed runs and skip records one SKIPPED run; both go on at the next
// time to come, and a run late by less than the grace is not missed.
func TestSchedulerMissed(t *testing.T) {
	for _, policy := range []MissedPolicy{"", MissedRunOnce, MissedSkip} {
		t.Run(string(policy), func(t *testing.T) {
			eachBackend(t, func(t *testing.T, db string) {
				clock := testclock.New(t0)
				st := openStore(t, db, Options{Now: clock.Now})
				var rec recorder
				s := newScheduler(t, st, Config{Runner: rec.runner("a"), Now: clock.Now, Grace: time.Minute})
				sc := create(t, st, Schedule{Name: "hourly", Spec: every("1h"), Enabled: true, Missed: policy})
				daily := create(t, st, Schedule{Name: "daily", Spec: cronSpec("0 3 * * *", ""), Enabled: true, Missed: policy})

				clock.Advance(3*24*time.Hour + 30*time.Minute) // down three days
				runs := runDue(t, s)
				if len(runs) != 2 {
					t.Fatalf("after downtime: %+v", runs)
				}
				for _, r := range runs {
					want := StatusSuccess
					if policy == MissedSkip {
						want = StatusSkipped
					}
					if r.Status != want || (want == StatusSkipped) != strings.Contains(r.Error, "missed: due at") {
						t.Errorf("after downtime: %+v", r)
					}
				}
				got, gotDaily := get(t, st, sc.ID), get(t, st, daily.ID)
				wantCount := int64(1)
				if policy == MissedSkip {
					wantCount = 0
				}
				if got.RunCount != wantCount || !got.NextRun.Equal(t0.Add(73*time.Hour)) || len(got.Runs) != 1 {
					t.Errorf("hourly after downtime: %+v", got)
				}
				if gotDaily.RunCount != wantCount || !gotDaily.NextRun.Equal(utc("2026-03-06T03:00:00Z")) {
					t.Errorf("daily after downtime: %+v", gotDaily)
				}
				if len(rec.all()) != int(2*wantCount) {
					t.Errorf("calls: %+v", rec.all())
				}
				if runs := runDue(t, s); len(runs) != 0 {
					t.Errorf("again: %+v", runs)
				}
				// Late by less than the grace: run, whatever the policy.
				clock.Advance(30*time.Minute + 50*time.Second)
				if runs := runDue(t, s); len(runs) != 1 || runs[0].Status != StatusSuccess {
					t.Errorf("a little late: %+v", runs)
				}
			})
		})
	}
}

// TestSchedulerDisabled: a disabled schedule never runs on its own; RunNow
// runs it.
func TestSchedulerDisabled(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		clock := testclock.New(t0)
		st := openStore(t, db, Options{Now: clock.Now})
		var rec recorder
		s := newScheduler(t, st, Config{Runner: rec.runner("a"), Now: clock.Now})
		off := create(t, st, Schedule{Name: "off", Spec: every("1m")})
		later := create(t, st, Schedule{Name: "later", Spec: every("1m"), Enabled: true})
		if _, err := st.Update(ctx, later.ID, func(sc *Schedule) error { sc.Enabled = false; return nil }); err != nil {
			t.Fatal(err)
		}
		for range 10 {
			clock.Advance(time.Minute)
			if runs := runDue(t, s); len(runs) != 0 {
				t.Fatalf("disabled schedules ran: %+v", runs)
			}
		}
		run, err := s.RunNow(ctx, off.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got := waitRuns(t, s, []Run{run}); got[0].Status != StatusSuccess || !got[0].Manual {
			t.Errorf("RunNow of a disabled schedule: %+v", got)
		}
		if got := get(t, st, off.ID); got.RunCount != 1 || !got.NextRun.IsZero() || got.Enabled {
			t.Errorf("after RunNow: %+v", got)
		}
		// Enabled again: from now, not from when it was due.
		if _, err := st.Update(ctx, later.ID, func(sc *Schedule) error { sc.Enabled = true; return nil }); err != nil {
			t.Fatal(err)
		}
		if runs := runDue(t, s); len(runs) != 0 {
			t.Errorf("at once when enabled again: %+v", runs)
		}
		clock.Advance(time.Minute)
		if runs := runDue(t, s); len(runs) != 1 || runs[0].ScheduleID != later.ID {
			t.Errorf("a minute after: %+v", runs)
		}
	})
}

// TestSchedulerOnce: a once schedule runs once and is done, stored
// disabled; missed under skip, it is done without running, disabled too.
func TestSchedulerOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		clock := testclock.New(t0)
		st := openStore(t, db, Options{Now: clock.Now})
		var rec recorder
		s := newScheduler(t, st, Config{Runner: rec.runner("a"), Now: clock.Now})
		remind := create(t, st, Schedule{Name: "remind", Spec: Spec{Once: t0.Add(time.Hour)}, Enabled: true})
		skipped := create(t, st, Schedule{Name: "skipped", Spec: Spec{Once: t0.Add(time.Hour)}, Enabled: true, Missed: MissedSkip})
		clock.Advance(2 * time.Hour)
		runs := runDue(t, s)
		if len(runs) != 2 {
			t.Fatalf("runs: %+v", runs)
		}
		for _, r := range runs {
			want := map[string]Status{remind.ID: StatusSuccess, skipped.ID: StatusSkipped}[r.ScheduleID]
			if r.Status != want || !r.Due.Equal(t0.Add(time.Hour)) {
				t.Errorf("run %+v, want %s", r, want)
			}
		}
		// Its one time taken (run or skipped), a once schedule is stored
		// disabled (it used to stay enabled with no next run).
		for id, count := range map[string]int64{remind.ID: 1, skipped.ID: 0} {
			if got := get(t, st, id); !got.NextRun.IsZero() || got.Enabled || !got.UpdatedAt.Equal(t0.Add(2*time.Hour)) || got.RunCount != count {
				t.Errorf("%s after its time: %+v, want disabled at %s", got.Name, got, t0.Add(2*time.Hour))
			}
		}
		for range 3 {
			clock.Advance(24 * time.Hour)
			if runs := runDue(t, s); len(runs) != 0 {
				t.Errorf("a once schedule ran again: %+v", runs)
			}
		}
		if calls := rec.all(); len(calls) != 1 || calls[0].schedule != "remind" {
			t.Errorf("calls: %+v", calls)
		}
	})
}

// TestSchedulerOutcomes: timeout, failure, panic, a result not JSON.
func TestSchedulerOutcomes(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		clock := testclock.New(t0)
		st := openStore(t, db, Options{Now: clock.Now})
		var rec recorder
		var finished []Run
		var mu sync.Mutex
		s := newScheduler(t, st, Config{Runner: rec.runner("a"), Now: clock.Now, OnFinish: func(_ Schedule, r Run) {
			mu.Lock()
			finished = append(finished, r)
			mu.Unlock()
		}})
		tests := []struct {
			name    string
			target  string
			timeout time.Duration
			status  Status
			err     string
			result  string
		}{
			{"timeout", `{"block":true}`, 50 * time.Millisecond, StatusTimeout, "timed out after 50ms: context deadline exceeded", ""},
			{"fails", `{"fail":"no model"}`, 0, StatusFailed, "no model", `{"partial":true}`},
			{"panics", `{"panic":true}`, 0, StatusFailed, "the runner panicked: boom", ""},
			{"text", `{"text":"plain words"}`, 0, StatusSuccess, "", `"plain words"`},
			{"ok", `{}`, 0, StatusSuccess, "", `{"n":5}`},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				sc := create(t, st, Schedule{Name: tt.name, Spec: every("1h"), Enabled: true, Target: json.RawMessage(tt.target), Timeout: tt.timeout})
				run, err := s.RunNow(ctx, sc.ID)
				if err != nil {
					t.Fatal(err)
				}
				got := waitRuns(t, s, []Run{run})[0]
				if got.Status != tt.status || got.Error != tt.err || string(got.Result) != tt.result {
					t.Errorf("outcome %s %q %s, want %s %q %s", got.Status, got.Error, got.Result, tt.status, tt.err, tt.result)
				}
				if stored, err := st.Run(ctx, run.ID); err != nil || stored.Status != got.Status || stored.Error != got.Error ||
					string(stored.Result) != string(got.Result) || stored.Finished.IsZero() {
					t.Errorf("stored %+v, %v", stored, err)
				}
			})
		}
		mu.Lock()
		defer mu.Unlock()
		if len(finished) != len(tests) {
			t.Errorf("OnFinish saw %d runs", len(finished))
		}
	})
}

// TestRunNow: RunNow runs at once without moving the next run; runs of a
// schedule do not overlap, whoever starts them.
func TestRunNow(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		clock := testclock.New(t0)
		st := openStore(t, db, Options{Now: clock.Now})
		var rec recorder
		s := newScheduler(t, st, Config{Runner: rec.runner("a"), Now: clock.Now})
		sc := create(t, st, Schedule{Name: "hourly", Spec: every("1h"), Enabled: true})
		clock.Advance(10 * time.Minute)
		run, err := s.RunNow(ctx, sc.ID)
		if err != nil || run.Status != StatusRunning || !run.Manual || !run.Due.Equal(t0.Add(10*time.Minute)) {
			t.Fatalf("RunNow: %+v, %v", run, err)
		}
		waitRuns(t, s, []Run{run})
		if got := get(t, st, sc.ID); got.RunCount != 1 || !got.NextRun.Equal(t0.Add(time.Hour)) || !got.LastRun.Equal(t0.Add(10*time.Minute)) {
			t.Errorf("after RunNow: %+v", got)
		}
		if _, err := s.RunNow(ctx, "nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("RunNow(nope): %v", err)
		}

		// A long run: RunNow is refused, the scheduled run is skipped.
		long := create(t, st, Schedule{Name: "long", Spec: every("1m"), Enabled: true, Target: json.RawMessage(`{"block":true}`), Timeout: time.Hour})
		blocked, err := s.RunNow(ctx, long.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.RunNow(ctx, long.ID); !errors.Is(err, ErrRunning) {
			t.Errorf("RunNow while running: %v", err)
		}
		clock.Advance(time.Minute)
		runs, err := s.RunDue(ctx)
		if err != nil || len(runs) != 1 || runs[0].Status != StatusSkipped || !strings.Contains(runs[0].Error, blocked.ID+" is still in progress") {
			t.Errorf("due while running: %+v, %v", runs, err)
		}
		if got := get(t, st, long.ID); got.RunCount != 1 || !got.NextRun.Equal(t0.Add(12*time.Minute)) {
			t.Errorf("after the skipped run: %+v", got)
		}
		stopNow(t, s) // the blocked run
	})
}

// TestInterrupted: a run whose replica died (RUNNING, nobody finishing
// it) blocks its schedule until its lease passes, then is recorded as
// interrupted.
func TestInterrupted(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		clock := testclock.New(t0)
		st := openStore(t, db, Options{Now: clock.Now})
		var rec recorder
		s := newScheduler(t, st, Config{Runner: rec.runner("a"), Now: clock.Now})
		sc := create(t, st, Schedule{Name: "minutely", Spec: every("1m"), Enabled: true})
		// The dead replica's run, with a lease of 5 minutes.
		_, dead, err := st.startManual(ctx, sc.ID, clock.Now(), func(Schedule) time.Duration { return 5 * time.Minute }, "dead")
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
		if runs := runDue(t, s); len(runs) != 1 || runs[0].Status != StatusSkipped {
			t.Errorf("while the dead run's lease holds: %+v", runs)
		}
		clock.Advance(4 * time.Minute)
		runs := runDue(t, s)
		if len(runs) != 1 || runs[0].Status != StatusSuccess {
			t.Errorf("once the lease passed: %+v", runs)
		}
		got, err := st.Run(ctx, dead.ID)
		if err != nil || got.Status != StatusFailed || !strings.Contains(got.Error, "interrupted") || !got.Finished.Equal(t0.Add(5*time.Minute)) {
			t.Errorf("the dead run: %+v, %v", got, err)
		}
	})
}

// TestStop: a graceful Stop waits for the runs; a Stop whose context is
// done cancels them, and they are recorded as interrupted; afterwards the
// scheduler refuses work.
func TestStop(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		clock := testclock.New(t0)
		st := openStore(t, db, Options{Now: clock.Now})
		release := make(chan struct{})
		graceful, err := New(st, Config{Now: clock.Now, Logger: testLogger(t), Runner: func(context.Context, Schedule, time.Time) (json.RawMessage, error) {
			<-release
			return json.RawMessage(`"done"`), nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		a := create(t, st, Schedule{Name: "a", Spec: every("1h")})
		run, err := graceful.RunNow(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		stopped := make(chan error)
		go func() { stopped <- graceful.Stop(ctx) }()
		close(release)
		if err := <-stopped; err != nil {
			t.Fatal(err)
		}
		if got, _ := st.Run(ctx, run.ID); got.Status != StatusSuccess {
			t.Errorf("after a graceful Stop: %+v", got)
		}

		var rec recorder
		hard := newScheduler(t, st, Config{Runner: rec.runner("a"), Now: clock.Now})
		if err := hard.Start(ctx); err != nil {
			t.Fatal(err)
		}
		b := create(t, st, Schedule{Name: "b", Spec: every("1h"), Target: json.RawMessage(`{"block":true}`)})
		run, err = hard.RunNow(ctx, b.ID)
		if err != nil {
			t.Fatal(err)
		}
		done, cancel := context.WithCancel(ctx)
		cancel()
		if err := hard.Stop(done); err != nil {
			t.Fatal(err)
		}
		if got, _ := st.Run(ctx, run.ID); got.Status != StatusFailed || !strings.HasPrefix(got.Error, "interrupted: the scheduler stopped") {
			t.Errorf("after a hard Stop: %+v", got)
		}
		if _, err := hard.RunDue(ctx); !errors.Is(err, ErrStopped) {
			t.Errorf("RunDue after Stop: %v", err)
		}
		if _, err := hard.RunNow(ctx, b.ID); !errors.Is(err, ErrStopped) {
			t.Errorf("RunNow after Stop: %v", err)
		}
		if err := hard.Start(ctx); !errors.Is(err, ErrStopped) {
			t.Errorf("Start after Stop: %v", err)
		}
		if err := hard.Stop(ctx); err != nil {
			t.Errorf("Stop twice: %v", err)
		}
	})
}

// TestRestart: the store and the scheduler closed and opened again on
// the same database keep the run count, the last and next runs and the
// runs, and go on from them.
func TestRestart(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		clock := testclock.New(t0)
		var rec recorder
		o, err := tryOpen(db, Options{Now: clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		s, err := New(o.Store, Config{Runner: rec.runner("first"), Now: clock.Now, Logger: testLogger(t)})
		if err != nil {
			t.Fatal(err)
		}
		sc := create(t, o.Store, Schedule{Name: "hourly", Spec: every("1h"), Enabled: true})
		for range 2 {
			clock.Advance(time.Hour)
			if runs := runDue(t, s); len(runs) != 1 {
				t.Fatalf("runs: %+v", runs)
			}
		}
		if err := s.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		o.close()

		st := openStore(t, db, Options{Now: clock.Now})
		got := get(t, st, sc.ID)
		if got.RunCount != 2 || !got.LastRun.Equal(t0.Add(2*time.Hour)) || !got.NextRun.Equal(t0.Add(3*time.Hour)) || len(got.Runs) != 2 {
			t.Fatalf("after the restart: %+v", got)
		}
		s = newScheduler(t, st, Config{Runner: rec.runner("second"), Now: clock.Now})
		if runs := runDue(t, s); len(runs) != 0 {
			t.Errorf("at once after the restart: %+v", runs)
		}
		clock.Advance(time.Hour)
		if runs := runDue(t, s); len(runs) != 1 || !runs[0].Due.Equal(t0.Add(3*time.Hour)) {
			t.Errorf("after the restart: %+v", runs)
		}
		if got := get(t, st, sc.ID); got.RunCount != 3 {
			t.Errorf("run count: %d", got.RunCount)
		}
	})
}

// TestReplicasFakeClock: three schedulers on one database, as three
// replicas, look for due runs at the same moments of a shared clock: each
// run is claimed and run by exactly one of them.
func TestReplicasFakeClock(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		const replicas, schedules, steps = 3, 10, 10
		clock := testclock.New(t0)
		var rec recorder
		ss := make([]*Scheduler, replicas)
		for i := range ss {
			ss[i] = newScheduler(t, openStore(t, db, Options{Now: clock.Now}),
				Config{Runner: rec.runner(fmt.Sprint("r", i)), Now: clock.Now, MaxRuns: schedules, Replica: fmt.Sprint("r", i)})
		}
		st := openStore(t, db, Options{Now: clock.Now})
		for i := range schedules {
			create(t, st, Schedule{Name: fmt.Sprint("s", i), Spec: every("1m"), Enabled: true})
		}
		for range steps {
			clock.Advance(time.Minute)
			var wg sync.WaitGroup
			for _, s := range ss {
				wg.Go(func() { runDue(t, s) })
			}
			wg.Wait()
		}
		checkOnce(t, st, rec.all(), schedules, steps)
	})
}

// checkOnce checks that each (schedule, due) ran exactly once, that every
// schedule ran at least min times, and that the counts the store keeps
// add up to the runs.
func checkOnce(t *testing.T, st *Store, calls []call, schedules, min int) {
	t.Helper()
	seen := map[string][]string{}
	perSchedule := map[string]int{}
	perReplica := map[string]int{}
	for _, c := range calls {
		key := c.schedule + "@" + c.due.Format(time.RFC3339Nano)
		seen[key] = append(seen[key], c.replica)
		perSchedule[c.schedule]++
		perReplica[c.replica]++
	}
	for key, by := range seen {
		if len(by) != 1 {
			t.Errorf("%s ran %d times, by %v", key, len(by), by)
		}
	}
	list, err := st.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var counted int64
	for _, sc := range list {
		counted += sc.RunCount
		if perSchedule[sc.Name] < min {
			t.Errorf("%s ran %d times, want at least %d", sc.Name, perSchedule[sc.Name], min)
		}
		for _, r := range sc.Runs {
			if r.Status != StatusSuccess {
				t.Errorf("%s: run %+v", sc.Name, r)
			}
		}
	}
	if len(list) != schedules || counted != int64(len(calls)) {
		t.Errorf("%d schedules counting %d runs; the runner ran %d", len(list), counted, len(calls))
	}
	t.Logf("%d runs, by replica: %v", len(calls), perReplica)
}

// TestSchedulerDisableError: a due run whose Runner returns a
// DisableError is recorded FAILED with its reason, and its schedule is
// disabled (no next run, no further due run) with the reason, as stored
// and listed; enabling it again clears the reason. Another schedule's
// failure disables nothing.
func TestSchedulerDisableError(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		clock := testclock.New(t0)
		st := openStore(t, db, Options{Now: clock.Now})
		var rec recorder
		s := newScheduler(t, st, Config{Runner: rec.runner("a"), Now: clock.Now, Replica: "a"})
		const why = "the key that made it is revoked"
		gone := create(t, st, Schedule{Name: "gone", Spec: every("1m"), Enabled: true, Target: json.RawMessage(`{"disable":"` + why + `"}`)})
		fails := create(t, st, Schedule{Name: "fails", Spec: every("1m"), Enabled: true, Target: json.RawMessage(`{"fail":"no model"}`)})
		clock.Advance(time.Minute)
		runs := runDue(t, s)
		if len(runs) != 2 {
			t.Fatalf("%d runs, want 2", len(runs))
		}
		stored := get(t, st, gone.ID)
		if stored.Enabled || !stored.NextRun.IsZero() || stored.DisabledReason != why || len(stored.Runs) != 1 {
			t.Fatalf("the schedule after its run: enabled %v next %v reason %q runs %d", stored.Enabled, stored.NextRun, stored.DisabledReason, len(stored.Runs))
		}
		want := Run{ID: RunID(gone.ID, t0.Add(time.Minute)), ScheduleID: gone.ID, Due: t0.Add(time.Minute), Status: StatusFailed,
			Started: t0.Add(time.Minute), Finished: t0.Add(time.Minute), Result: json.RawMessage(`{"ran":false}`), Error: "wrapped: " + why, Replica: "a"}
		if r, err := st.Run(ctx, stored.Runs[0].ID); err != nil || fmt.Sprint(r) != fmt.Sprint(want) {
			t.Errorf("the stored run:\n%+v (%v)\nwant\n%+v", r, err, want)
		}
		if other := get(t, st, fails.ID); !other.Enabled || other.DisabledReason != "" {
			t.Errorf("a failing schedule: enabled %v reason %q", other.Enabled, other.DisabledReason)
		}
		list, err := st.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		j, _ := json.Marshal(list[1])
		if list[1].Name != "gone" || !strings.Contains(string(j), `"enabled":false,"disabledReason":"`+why+`"`) {
			t.Errorf("listed: %s", j)
		}
		// Disabled: no further run falls due.
		clock.Advance(time.Hour)
		for _, r := range runDue(t, s) {
			if r.ScheduleID == gone.ID {
				t.Errorf("a disabled schedule ran: %+v", r)
			}
		}
		// Enabled again: the reason goes.
		again, err := st.Update(ctx, gone.ID, func(sc *Schedule) error { sc.Enabled = true; return nil })
		if err != nil || !again.Enabled || again.DisabledReason != "" || get(t, st, gone.ID).DisabledReason != "" {
			t.Errorf("enabled again: %+v, %v", again, err)
		}
	})
}
