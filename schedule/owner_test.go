package schedule

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/internal/dbconn"
	"github.com/agentgw/agentgw/internal/testclock"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/store/pgstore"
	"github.com/agentgw/agentgw/store/sqlitestore"
)

// TestOwners: a schedule keeps the owner its creator gives it, through
// Get, List and Update; ListOwned lists one owner's; Sync's schedules are
// the operator's.
func TestOwners(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		st := openStore(t, db, Options{Now: testclock.New(t0).Now})
		a := create(t, st, Schedule{Name: "a", Spec: every("1h"), Enabled: true, Owner: "token:a"})
		create(t, st, Schedule{Name: "b", Spec: every("1h"), Owner: "token:b"})
		if _, err := st.Sync(ctx, "config", []Schedule{{Name: "static", Spec: every("1h")}}); err != nil {
			t.Fatal(err)
		}
		if got := get(t, st, a.ID); got.Owner != "token:a" {
			t.Errorf("Get: owner %q, want token:a", got.Owner)
		}
		if got, err := st.GetByName(ctx, "static"); err != nil || got.Owner != access.Operator {
			t.Errorf("static schedule: owner %q (%v), want %q", got.Owner, err, access.Operator)
		}
		up, err := st.Update(ctx, a.ID, func(sc *Schedule) error { sc.Owner = "token:b"; sc.Enabled = false; return nil })
		if err != nil || up.Owner != "token:a" || get(t, st, a.ID).Owner != "token:a" {
			t.Errorf("Update changed the owner: %q, %v", up.Owner, err)
		}
		for owner, want := range map[string][]string{
			"token:a": {"a"}, "token:b": {"b"}, access.Operator: {"static"}, "token:c": nil,
		} {
			l, err := st.ListOwned(ctx, owner)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, sc := range l {
				names = append(names, sc.Name)
				if sc.Owner != owner {
					t.Errorf("ListOwned(%s) lists %s of %s", owner, sc.Name, sc.Owner)
				}
			}
			if !slices.Equal(names, want) {
				t.Errorf("ListOwned(%s) = %v, want %v", owner, names, want)
			}
		}
		if all, err := st.List(ctx); err != nil || len(all) != 3 {
			t.Errorf("List: %d schedules, %v; want 3", len(all), err)
		}
	})
}

// TestCreateLimited: an owner gets at most its limit of run-time
// schedules, even when creating them at once; other owners and the
// operator's files do not count against it.
func TestCreateLimited(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		st := openStore(t, db, Options{})
		if _, err := st.Sync(ctx, "config", []Schedule{{Name: "s1", Spec: every("1h")}, {Name: "s2", Spec: every("1h")}}); err != nil {
			t.Fatal(err)
		}
		create(t, st, Schedule{Name: "other", Spec: every("1h"), Owner: "token:b"})
		const limit = 3
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Go(func() {
				_, errs[i] = st.CreateLimited(ctx, Schedule{Name: fmt.Sprintf("a%d", i), Spec: every("1h"), Owner: "token:a"}, limit)
			})
		}
		wg.Wait()
		ok, quota := 0, 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, ErrQuota):
				quota++
			default:
				t.Errorf("CreateLimited: %v", err)
			}
		}
		if ok != limit || quota != len(errs)-limit {
			t.Errorf("%d created, %d refused for the quota; want %d and %d", ok, quota, limit, len(errs)-limit)
		}
		if l, _ := st.ListOwned(ctx, "token:a"); len(l) != limit {
			t.Errorf("token:a has %d schedules, want %d", len(l), limit)
		}
		if _, err := st.CreateLimited(ctx, Schedule{Name: "b2", Spec: every("1h"), Owner: "token:b"}, limit); err != nil {
			t.Errorf("another owner: %v", err)
		}
	})
}

// TestOwnerMigration: the schedules of a database made before owners
// become the operator's.
func TestOwnerMigration(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		insert := `INSERT INTO schedules (id, name, spec, enabled, created_at, updated_at) VALUES ('old', 'old', '{"every":"1h0m0s"}', 1, 1, 1)`
		if store.IsPostgresURL(db) {
			p, err := pgstore.Open(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			old := schema
			old.Postgres = old.Postgres[:1]
			err = old.MigratePostgres(ctx, p.Pool(), dbconn.MigrateOptions{})
			if err == nil {
				_, err = p.Pool().Exec(ctx, insert)
			}
			_ = p.Close()
			if err != nil {
				t.Fatal(err)
			}
		} else {
			s, err := sqlitestore.Open(db)
			if err != nil {
				t.Fatal(err)
			}
			old := schema
			old.SQLite = old.SQLite[:1]
			err = old.MigrateSQLite(ctx, s.DB(), dbconn.MigrateOptions{})
			if err == nil {
				_, err = s.DB().ExecContext(ctx, insert)
			}
			_ = s.Close()
			if err != nil {
				t.Fatal(err)
			}
		}
		st := openStore(t, db, Options{})
		if got := get(t, st, "old"); got.Owner != access.Operator {
			t.Errorf("a schedule from before owners: owner %q, want %q", got.Owner, access.Operator)
		}
	})
}

// TestInterval: the shortest time between two runs of a spec.
func TestInterval(t *testing.T) {
	from := utc("2026-03-02T10:17:00Z")
	for _, tc := range []struct {
		spec Spec
		want time.Duration
		ok   bool
	}{
		{every("1s"), time.Second, true},
		{every("1h30m"), 90 * time.Minute, true},
		{Spec{Once: from.Add(time.Hour)}, 0, false},
		{cronSpec("* * * * *", ""), time.Minute, true},
		{cronSpec("*/5 * * * *", ""), 5 * time.Minute, true},
		{cronSpec("0 3 * * *", "Europe/Paris"), 24 * time.Hour, true},
		{cronSpec("@hourly", ""), time.Hour, true},
		{cronSpec("@weekly", ""), 7 * 24 * time.Hour, true},
		// Runs early in the day only, before from's time: found all the same.
		{cronSpec("0,1 2 * * *", ""), time.Minute, true},
		// Last run of one day, first of the next.
		{cronSpec("0,59 0,23 * * *", ""), time.Minute, true},
		{cronSpec("0 0 * * 1-5", ""), 24 * time.Hour, true},
		// A day of the month that comes after from's.
		{cronSpec("0-2 9 20 * *", ""), time.Minute, true},
		{cronSpec("0 12 29 2 *", ""), (365*4 + 1) * 24 * time.Hour, true},
		// The 31st: two months apart at the first, one (July, August) later.
		{cronSpec("0 0 31 * *", ""), 31 * 24 * time.Hour, true},
		// The 31st or a Monday: the 31st a Sunday, then Monday the 1st.
		{cronSpec("0,59 0,23 31 * MON", ""), time.Minute, true},
		// Day-of-month and day-of-week both restricted, one * : both must match.
		{cronSpec("0 9 * * SAT,SUN", ""), 24 * time.Hour, true},
		{cronSpec("0 9 * * MON,THU", ""), 3 * 24 * time.Hour, true},
	} {
		got, ok := tc.spec.Interval(from)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s: Interval = %s, %v; want %s, %v", tc.spec, got, ok, tc.want, tc.ok)
		}
	}
}
