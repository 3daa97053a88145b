package schedule

import (
	"testing"
	"time"
)

// TestCreateWakesTheScheduler: a schedule made by this process runs on
// time although the scheduler's next look was an hour away: the store's
// change woke it, and it then waited for the run's due time.
func TestCreateWakesTheScheduler(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		st := openStore(t, db, Options{})
		finished := make(chan Run, 4)
		var rec recorder
		s := newScheduler(t, st, Config{Runner: rec.runner("a"), Tick: time.Hour, Heartbeat: time.Hour,
			OnFinish: func(_ Schedule, r Run) { finished <- r }})
		start(t, s)
		waitFor(t, "the first look", func() bool { return s.looks.Load() >= 1 })
		looks := s.looks.Load()
		create(t, st, Schedule{Name: "soon", Spec: every("1s"), Enabled: true})
		select {
		case r := <-finished:
			if r.Status != StatusSuccess {
				t.Errorf("run %+v", r)
			}
		case <-time.After(30 * time.Second): // the hour's look would not have come
			t.Fatal("the schedule did not run: its creation did not wake the scheduler")
		}
		if got := s.looks.Load(); got <= looks {
			t.Errorf("looks = %d, %d before the creation", got, looks)
		}
	})
}

// TestIdleSchedulerDoesNotLook: with no schedule, a started scheduler
// looks once at its start and then not before its Tick.
func TestIdleSchedulerDoesNotLook(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		st := openStore(t, db, Options{})
		var rec recorder
		s := newScheduler(t, st, Config{Runner: rec.runner("a"), Tick: time.Hour, Heartbeat: time.Hour})
		start(t, s)
		waitFor(t, "the first look", func() bool { return s.looks.Load() >= 1 })
		time.Sleep(2 * time.Second)
		if got := s.looks.Load(); got != 1 {
			t.Errorf("idle for 2s: %d looks for due runs, want the start's one", got)
		}
	})
}
