package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/agentgw/agentgw/internal/testclock"
)

// TestStoreCRUD: create, read, list, update and delete, and what each
// refuses.
func TestStoreCRUD(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		clock := testclock.New(t0)
		st := openStore(t, db, Options{Now: clock.Now})

		nightly := create(t, st, Schedule{ID: "nightly", Name: "nightly-review", Spec: cronSpec("0 3 * * *", "Europe/Paris"),
			Enabled: true, Target: json.RawMessage(`{ "agent": "review",  "command": "main" }`), Timeout: time.Hour})
		if nightly.ID != "nightly" || !nightly.NextRun.Equal(utc("2026-03-03T02:00:00Z")) || nightly.Missed != MissedRunOnce ||
			string(nightly.Target) != `{"agent":"review","command":"main"}` || !nightly.CreatedAt.Equal(t0) {
			t.Errorf("created %+v", nightly)
		}
		hourly := create(t, st, Schedule{Name: "hourly", Spec: every("1h"), Enabled: true, Missed: MissedSkip})
		if _, err := uuid.Parse(hourly.ID); err != nil || !hourly.NextRun.Equal(t0.Add(time.Hour)) {
			t.Errorf("created %+v (id %v)", hourly, err)
		}
		off := create(t, st, Schedule{Name: "off", Spec: every("1m")})
		if !off.NextRun.IsZero() {
			t.Errorf("a disabled schedule has a next run: %s", off.NextRun)
		}

		got := get(t, st, "nightly")
		if !got.Spec.Equal(nightly.Spec) || got.Timeout != time.Hour || got.NextRun != nightly.NextRun || got.Name != "nightly-review" || !got.Enabled {
			t.Errorf("Get = %+v, want %+v", got, nightly)
		}
		if byName, err := st.GetByName(ctx, "hourly"); err != nil || byName.ID != hourly.ID || byName.Missed != MissedSkip {
			t.Errorf("GetByName(hourly) = %+v, %v", byName, err)
		}
		list, err := st.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, sc := range list {
			names = append(names, sc.Name)
		}
		if !slices.Equal(names, []string{"hourly", "nightly-review", "off"}) {
			t.Errorf("List: %v", names)
		}

		for _, bad := range []Schedule{
			{Name: "nightly-review", Spec: every("1h")},
			{ID: "nightly", Name: "other", Spec: every("1h")},
		} {
			if _, err := st.Create(ctx, bad); !errors.Is(err, ErrExists) {
				t.Errorf("Create(%s, %s) = %v, want ErrExists", bad.ID, bad.Name, err)
			}
		}
		var ve *ValidationError
		for _, bad := range []Schedule{
			{Name: "", Spec: every("1h")},
			{Name: "has space", Spec: every("1h")},
			{Name: "no-spec"},
			{Name: "bad-target", Spec: every("1h"), Target: json.RawMessage(`{`)},
			{Name: "bad-missed", Spec: every("1h"), Missed: "later"},
			{Name: "past", Spec: Spec{Once: t0.Add(-time.Minute)}, Enabled: true},
			{Name: "negative", Spec: every("1h"), Timeout: -time.Second},
		} {
			if _, err := st.Create(ctx, bad); !errors.As(err, &ve) {
				t.Errorf("Create(%q) = %v, want a *ValidationError", bad.Name, err)
			}
		}

		clock.Advance(10 * time.Minute)
		// Disabled: no next run. Enabled again: from now.
		sc, err := st.Update(ctx, hourly.ID, func(sc *Schedule) error { sc.Enabled = false; return nil })
		if err != nil || sc.Enabled || !sc.NextRun.IsZero() || !sc.UpdatedAt.Equal(t0.Add(10*time.Minute)) {
			t.Errorf("disabled: %+v, %v", sc, err)
		}
		sc, err = st.Update(ctx, hourly.ID, func(sc *Schedule) error { sc.Enabled = true; return nil })
		if err != nil || !sc.NextRun.Equal(t0.Add(70*time.Minute)) {
			t.Errorf("enabled again: %+v, %v", sc, err)
		}
		// A new spec: a new next run. A new target alone: the same.
		sc, err = st.Update(ctx, "nightly", func(sc *Schedule) error { sc.Spec = cronSpec("0 12 * * *", ""); return nil })
		if err != nil || !sc.NextRun.Equal(utc("2026-03-02T12:00:00Z")) {
			t.Errorf("new spec: %+v, %v", sc, err)
		}
		sc, err = st.Update(ctx, "nightly", func(sc *Schedule) error {
			sc.Target, sc.Name = json.RawMessage(`{"tool":"lint"}`), "noon-lint"
			sc.RunCount, sc.ID = 99, "hijack" // the store's: ignored
			return nil
		})
		if err != nil || sc.ID != "nightly" || sc.RunCount != 0 || sc.Name != "noon-lint" || string(sc.Target) != `{"tool":"lint"}` ||
			!sc.NextRun.Equal(utc("2026-03-02T12:00:00Z")) {
			t.Errorf("new target and name: %+v, %v", sc, err)
		}
		if _, err := st.Update(ctx, "nightly", func(sc *Schedule) error { sc.Name = "hourly"; return nil }); !errors.Is(err, ErrExists) {
			t.Errorf("rename to a taken name: %v", err)
		}
		if _, err := st.Update(ctx, "nightly", func(sc *Schedule) error { sc.Spec = Spec{}; return nil }); !errors.As(err, &ve) {
			t.Errorf("no spec: %v", err)
		}
		mine := errors.New("no thanks")
		if _, err := st.Update(ctx, "nightly", func(*Schedule) error { return mine }); !errors.Is(err, mine) {
			t.Errorf("fn's error: %v", err)
		}
		if _, err := st.Update(ctx, "nope", func(*Schedule) error { return nil }); !errors.Is(err, ErrNotFound) {
			t.Errorf("Update(nope): %v", err)
		}
		if got := get(t, st, "nightly"); got.Name != "noon-lint" || !got.UpdatedAt.Equal(t0.Add(10*time.Minute)) {
			t.Errorf("after the refused updates: %+v", got)
		}

		if err := st.Delete(ctx, "nightly"); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Get(ctx, "nightly"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get after Delete: %v", err)
		}
		if err := st.Delete(ctx, "nightly"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Delete twice: %v", err)
		}
		// The name is free again.
		create(t, st, Schedule{Name: "noon-lint", Spec: every("1h")})
	})
}

// TestScheduleJSON: the API's shape of a schedule.
func TestScheduleJSON(t *testing.T) {
	sc := Schedule{ID: "n", Name: "nightly", Spec: cronSpec("0 3 * * *", "Europe/Paris"), Enabled: true,
		Target: json.RawMessage(`{"agent":"review"}`), Timeout: 30 * time.Minute, Missed: MissedRunOnce, Source: "config",
		CreatedAt: t0, UpdatedAt: t0, NextRun: t0.Add(time.Hour), RunCount: 2,
		Runs: []Run{{ID: "r", ScheduleID: "n", Due: t0, Status: StatusSuccess, Started: t0, Finished: t0.Add(time.Second),
			Result: json.RawMessage(`{"text":"ok"}`)}}}
	b, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"n","name":"nightly","cron":"0 3 * * *","timezone":"Europe/Paris","enabled":true,"target":{"agent":"review"},` +
		`"timeout":"30m0s","missed":"runOnce","source":"config","createdAt":"2026-03-02T10:00:00Z","updatedAt":"2026-03-02T10:00:00Z",` +
		`"nextRun":"2026-03-02T11:00:00Z","runCount":2,"runs":[{"id":"r","scheduleId":"n","due":"2026-03-02T10:00:00Z",` +
		`"status":"SUCCESS","start":"2026-03-02T10:00:00Z","end":"2026-03-02T10:00:01Z","result":{"text":"ok"}}]}`
	if string(b) != want {
		t.Errorf("JSON:\n got %s\nwant %s", b, want)
	}
	b, _ = json.Marshal(Schedule{ID: "x", Name: "x", Spec: every("1h")})
	if want := `{"id":"x","name":"x","every":"1h0m0s","enabled":false,"nextRun":null,"runCount":0}`; string(b) != want {
		t.Errorf("JSON:\n got %s\nwant %s", b, want)
	}
}

// TestSync: static schedules converge on their definitions, keep their
// state and run-time enabling, and are guarded against run-time changes.
func TestSync(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		clock := testclock.New(t0)
		st := openStore(t, db, Options{Now: clock.Now})
		defs := []Schedule{
			{Name: "nightly", Spec: cronSpec("0 3 * * *", ""), Enabled: true, Target: json.RawMessage(`{"agent":"review"}`)},
			{Name: "weekly", Spec: cronSpec("@weekly", ""), Enabled: true},
			{Name: "later", Spec: every("1h")},
		}
		rep, err := st.Sync(ctx, "config", defs)
		if err != nil || len(rep.Created) != 3 || len(rep.Updated)+len(rep.Deleted)+len(rep.Unchanged) != 0 {
			t.Fatalf("first Sync: %+v, %v", rep, err)
		}
		nightly, err := st.GetByName(ctx, "nightly")
		if err != nil || nightly.ID != StaticID("config", "nightly") || nightly.Source != "config" ||
			!nightly.NextRun.Equal(utc("2026-03-03T03:00:00Z")) {
			t.Fatalf("nightly: %+v, %v", nightly, err)
		}

		// Run-time: enable and disable only.
		if _, err := st.Update(ctx, nightly.ID, func(sc *Schedule) error { sc.Spec = every("1m"); return nil }); !errors.Is(err, ErrStatic) {
			t.Errorf("changing a static spec: %v", err)
		}
		if err := st.Delete(ctx, nightly.ID); !errors.Is(err, ErrStatic) {
			t.Errorf("deleting a static schedule: %v", err)
		}
		if _, err := st.Update(ctx, nightly.ID, func(sc *Schedule) error { sc.Enabled = false; return nil }); err != nil {
			t.Fatal(err)
		}
		// Give nightly some state to keep.
		clock.Advance(17 * time.Hour)
		if _, _, err := st.startManual(ctx, nightly.ID, clock.Now(), func(Schedule) time.Duration { return time.Hour }, "test"); err != nil {
			t.Fatal(err)
		}

		// The same definitions: nothing changes, nightly stays disabled.
		rep, err = st.Sync(ctx, "config", defs)
		if err != nil || len(rep.Unchanged) != 3 || len(rep.Created)+len(rep.Updated)+len(rep.Deleted) != 0 {
			t.Fatalf("same Sync: %+v, %v", rep, err)
		}
		if got := get(t, st, nightly.ID); got.Enabled || !got.NextRun.IsZero() {
			t.Errorf("nightly after the same Sync: %+v", got)
		}

		// nightly changes, weekly goes, monthly comes.
		defs = []Schedule{
			{Name: "nightly", Spec: cronSpec("0 4 * * *", ""), Enabled: true, Target: json.RawMessage(`{"agent":"review"}`)},
			{Name: "later", Spec: every("1h")},
			{Name: "monthly", ID: "month", Spec: cronSpec("@monthly", ""), Enabled: true},
		}
		rep, err = st.Sync(ctx, "config", defs)
		if err != nil || !slices.Equal(rep.Updated, []string{"nightly"}) || !slices.Equal(rep.Deleted, []string{"weekly"}) ||
			!slices.Equal(rep.Created, []string{"monthly"}) || !slices.Equal(rep.Unchanged, []string{"later"}) {
			t.Fatalf("changed Sync: %+v, %v", rep, err)
		}
		got := get(t, st, nightly.ID)
		if !got.Enabled || !got.NextRun.Equal(utc("2026-03-03T04:00:00Z")) || !got.CreatedAt.Equal(t0) || got.RunCount != 1 || len(got.Runs) != 1 {
			t.Errorf("nightly after its change: %+v", got)
		}
		if _, err := st.GetByName(ctx, "weekly"); !errors.Is(err, ErrNotFound) {
			t.Errorf("weekly after it went: %v", err)
		}
		if got := get(t, st, "month"); got.Source != "config" {
			t.Errorf("monthly: %+v", got)
		}

		// Conflicts fail the whole Sync and change nothing.
		create(t, st, Schedule{Name: "mine", Spec: every("1h")})
		for _, bad := range [][]Schedule{
			append(slices.Clone(defs), Schedule{Name: "mine", Spec: every("1h")}),
			append(slices.Clone(defs[:2]), Schedule{Name: "later", Spec: every("2h")}),
			{{Name: "nightly", Spec: Spec{Cron: "0 25 * * *"}}},
		} {
			if _, err := st.Sync(ctx, "config", bad); err == nil {
				t.Errorf("Sync of %d definitions with a conflict: no error", len(bad))
			}
		}
		if _, err := st.Sync(ctx, "agents/other.yaml", []Schedule{{Name: "nightly", Spec: every("1h")}}); !errors.Is(err, ErrExists) {
			t.Errorf("a name of another source: %v", err)
		}
		if got, _ := st.List(ctx); len(got) != 4 {
			t.Errorf("after the failed Syncs: %d schedules", len(got))
		}
		// An empty definition list removes the source's schedules.
		rep, err = st.Sync(ctx, "config", nil)
		if err != nil || len(rep.Deleted) != 3 {
			t.Errorf("empty Sync: %+v, %v", rep, err)
		}
		if got, _ := st.List(ctx); len(got) != 1 || got[0].Name != "mine" {
			t.Errorf("after the empty Sync: %+v", got)
		}
	})
}

// TestSyncReplicas: replicas that start at once sync the same definitions
// at once on one new database: each schedule is created once, by one of
// them, and migrations are recorded once.
func TestSyncReplicas(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		const replicas = 4
		defs := make([]Schedule, 10)
		for i := range defs {
			defs[i] = Schedule{Name: fmt.Sprint("s", i), Spec: every("1h"), Enabled: true}
		}
		reps := make([]SyncReport, replicas)
		stores := make([]*Store, replicas)
		var wg sync.WaitGroup
		for i := range replicas {
			wg.Go(func() {
				o, err := tryOpen(db, Options{})
				if err != nil {
					t.Errorf("replica %d: %v", i, err)
					return
				}
				t.Cleanup(o.close)
				stores[i] = o.Store
				if reps[i], err = o.Sync(context.Background(), "config", defs); err != nil {
					t.Errorf("replica %d: Sync: %v", i, err)
				}
			})
		}
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		created := 0
		for _, r := range reps {
			created += len(r.Created)
		}
		list, err := stores[0].List(context.Background())
		if err != nil || len(list) != len(defs) || created != len(defs) {
			t.Errorf("%d schedules, %d created in all: %+v, %v", len(list), created, reps, err)
		}
		var n int64
		if err := stores[1].pool.QueryRow(context.Background(), `SELECT count(*) FROM schedule_migrations`).Scan(&n); err != nil || n != int64(len(sqliteMigrations)) {
			t.Errorf("schedule_migrations: %d rows, %v", n, err)
		}
	})
}

// TestKeepRuns: the store keeps the newest runs of each schedule.
func TestKeepRuns(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		clock := testclock.New(t0)
		st := openStore(t, db, Options{Now: clock.Now, KeepRuns: 3})
		a := create(t, st, Schedule{Name: "a", Spec: every("1m"), Enabled: true})
		b := create(t, st, Schedule{Name: "b", Spec: every("1m"), Enabled: true})
		for range 5 {
			clock.Advance(time.Minute)
			for _, id := range []string{a.ID, b.ID} {
				sc := get(t, st, id)
				run, ok, err := st.claim(ctx, claim{sc: sc, due: sc.NextRun, now: clock.Now(), grace: time.Minute, lease: time.Hour})
				if err != nil || !ok || run.Status != StatusRunning {
					t.Fatalf("claim: %+v %v %v", run, ok, err)
				}
				run.Status, run.Finished = StatusSuccess, clock.Now()
				if ok, err := st.finish(ctx, run, ""); !ok || err != nil {
					t.Fatalf("finish: %v %v", ok, err)
				}
			}
		}
		for _, id := range []string{a.ID, b.ID} {
			sc := get(t, st, id)
			if sc.RunCount != 5 || len(sc.Runs) != 3 || !sc.Runs[0].Due.Equal(t0.Add(5*time.Minute)) || !sc.Runs[2].Due.Equal(t0.Add(3*time.Minute)) {
				t.Errorf("%s: %d runs counted, kept %+v", sc.Name, sc.RunCount, sc.Runs)
			}
		}
		list, _ := st.List(ctx)
		if len(list) != 2 || len(list[0].Runs) != 3 || list[0].Runs[0].ScheduleID != a.ID {
			t.Errorf("List's runs: %+v", list)
		}
		if _, err := st.Run(ctx, "nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Run(nope): %v", err)
		}
	})
}
