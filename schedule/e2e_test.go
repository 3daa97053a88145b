package schedule

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// The tests of this file run real short schedules on the real clock.

// waitFor waits until cond holds, checking it every few milliseconds; it
// fails the test when a minute passes first (something is broken: the
// runs it waits for take a few seconds).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s after a minute", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func start(t *testing.T, s *Scheduler) {
	t.Helper()
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestEverySecondRunsTwice: an every: 1s schedule on a started scheduler
// runs, and runs again a second (or a whole number of seconds) later.
func TestEverySecondRunsTwice(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		st := openStore(t, db, Options{})
		finished := make(chan Run, 16)
		var rec recorder
		s := newScheduler(t, st, Config{Runner: rec.runner("a"), OnFinish: func(_ Schedule, r Run) { finished <- r }})
		sc := create(t, st, Schedule{Name: "tick", Spec: every("1s"), Enabled: true})
		start(t, s)
		var runs []Run
		for len(runs) < 2 {
			select {
			case r := <-finished:
				runs = append(runs, r)
			case <-time.After(time.Minute):
				t.Fatalf("after a minute, %d runs", len(runs))
			}
		}
		stopNow(t, s)
		gap := runs[1].Due.Sub(runs[0].Due)
		for _, r := range runs {
			if r.Status != StatusSuccess || r.ScheduleID != sc.ID || r.Due.Nanosecond() != 0 || r.Started.Before(r.Due) {
				t.Errorf("run %+v", r)
			}
		}
		if gap < time.Second || gap%time.Second != 0 {
			t.Errorf("runs due %s apart", gap)
		}
		got := get(t, st, sc.ID)
		if got.RunCount < 2 || !got.NextRun.After(runs[1].Due) {
			t.Errorf("after two runs: %+v", got)
		}
	})
}

// TestReplicasExactlyOnce: three started schedulers, each on its own
// connections to one database (three replicas), run four every: 1s
// schedules for a few seconds: each run is executed exactly once, by one
// of them, and the run counts add up.
func TestReplicasExactlyOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		const replicas, schedules, runs = 3, 4, 3
		st := openStore(t, db, Options{})
		for i := range schedules {
			create(t, st, Schedule{Name: fmt.Sprint("s", i), Spec: every("1s"), Enabled: true})
		}
		var rec recorder
		ss := make([]*Scheduler, replicas)
		for i := range ss {
			name := fmt.Sprint("r", i)
			ss[i] = newScheduler(t, openStore(t, db, Options{}), Config{Runner: rec.runner(name), Replica: name, Tick: 200 * time.Millisecond})
		}
		for _, s := range ss {
			start(t, s)
		}
		waitFor(t, fmt.Sprintf("%d runs of each schedule", runs), func() bool {
			n := map[string]int{}
			for _, c := range rec.all() {
				n[c.schedule]++
			}
			for i := range schedules {
				if n[fmt.Sprint("s", i)] < runs {
					return false
				}
			}
			return true
		})
		for _, s := range ss {
			if err := s.Stop(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		checkOnce(t, st, rec.all(), schedules, runs)
	})
}

// TestRestartRealTime: a scheduler runs an every: 1s schedule, stops, and
// its store closes; opened again on the same database, it goes on with
// the count and the next run where they were.
func TestRestartRealTime(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		var rec recorder
		o, err := tryOpen(db, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s := newScheduler(t, o.Store, Config{Runner: rec.runner("first")})
		sc := create(t, o.Store, Schedule{Name: "tick", Spec: every("1s"), Enabled: true})
		start(t, s)
		waitFor(t, "two runs", func() bool { return len(rec.all()) >= 2 })
		if err := s.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		o.close()
		before := rec.all()
		last := before[len(before)-1].due

		st := openStore(t, db, Options{})
		got := get(t, st, sc.ID)
		if got.RunCount != int64(len(before)) || !got.NextRun.After(last) || len(got.Runs) != len(before) {
			t.Fatalf("opened again after %d runs, the last due at %s: %+v", len(before), last, got)
		}
		s = newScheduler(t, st, Config{Runner: rec.runner("second")})
		start(t, s)
		waitFor(t, "a run after the restart", func() bool { return len(rec.all()) > len(before) })
		if err := s.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		calls := rec.all()
		for i := 1; i < len(calls); i++ {
			if !calls[i].due.After(calls[i-1].due) {
				t.Errorf("run %d due at %s, after one due at %s", i, calls[i].due, calls[i-1].due)
			}
		}
		if got := get(t, st, sc.ID); got.RunCount != int64(len(calls)) || calls[len(before)].replica != "second" {
			t.Errorf("after the restart: %d runs, %+v", len(calls), got)
		}
	})
}
