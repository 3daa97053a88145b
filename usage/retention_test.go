package usage

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// storedIDs are the request ids of the records in st, oldest first.
func storedIDs(t *testing.T, st *Store) []string {
	t.Helper()
	rows, err := st.pool.Query(context.Background(), `SELECT request_id FROM usage_records ORDER BY at, id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// storedCounters are the counters in st and their spent amounts.
func storedCounters(t *testing.T, st *Store) map[string]int64 {
	t.Helper()
	rows, err := st.pool.Query(context.Background(), `SELECT counter, spent FROM usage_counters`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var c string
		var n int64
		if err := rows.Scan(&c, &n); err != nil {
			t.Fatal(err)
		}
		out[c] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// retentionFixture writes records of ages around a 400-day retention
// (old1..old5 past it, edge at it exactly, then recent ones) and the
// current day's and month's counters, at t0.
func retentionFixture(t *testing.T, st *Store) {
	t.Helper()
	day := 24 * time.Hour
	var recs []Record
	for i, id := range []string{"old1", "old2", "old3", "old4", "old5"} {
		recs = append(recs, Record{At: t0.Add(-500*day + time.Duration(i)*day), RequestID: id, Key: "k1", In: 1})
	}
	recs = append(recs,
		Record{At: t0.Add(-400 * day), RequestID: "edge", Key: "k1", In: 1},
		Record{At: t0.Add(-40 * day), RequestID: "lastmonth", Key: "k1", In: 1},
		Record{At: t0.Add(-time.Hour), RequestID: "today", Key: "k1", In: 1})
	if err := st.Write(context.Background(), recs, nil); err != nil {
		t.Fatal(err)
	}
	charges := []Charge{
		{Counter: "key:k1|tokens|day", Amount: 7, Limit: 100, Expires: t0.Add(11 * time.Hour)},
		{Counter: "key:k1|tokens|month", Amount: 9, Limit: 100, Expires: t0.AddDate(0, 0, 2)},
	}
	if failed, _, err := st.Reserve(context.Background(), charges); failed != -1 || err != nil {
		t.Fatalf("Reserve: %d %v", failed, err)
	}
}

var wantCounters = map[string]int64{"key:k1|tokens|day": 7, "key:k1|tokens|month": 9}

// TestStorePrune: Prune deletes at most its limit of the records older
// than its cutoff, oldest first (a record at the cutoff stays), and no
// budget counter: the rows left are exact after each batch.
func TestStorePrune(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		st := openStore(t, db)
		retentionFixture(t, st)
		cutoff := t0.Add(-400 * 24 * time.Hour)
		steps := []struct {
			deleted int64
			left    []string
		}{
			{2, []string{"old3", "old4", "old5", "edge", "lastmonth", "today"}},
			{2, []string{"old5", "edge", "lastmonth", "today"}},
			{1, []string{"edge", "lastmonth", "today"}},
			{0, []string{"edge", "lastmonth", "today"}},
		}
		for i, s := range steps {
			n, err := st.Prune(ctx, cutoff, 2)
			if err != nil || n != s.deleted {
				t.Fatalf("step %d: Prune = %d, %v; want %d", i, n, err, s.deleted)
			}
			if got := storedIDs(t, st); !reflect.DeepEqual(got, s.left) {
				t.Fatalf("step %d: records left %q, want %q", i, got, s.left)
			}
		}
		if got := storedCounters(t, st); !reflect.DeepEqual(got, wantCounters) {
			t.Errorf("counters after pruning: %v, want %v", got, wantCounters)
		}
	})
}

// TestMeterRetention: the meter's sweep prunes the records past
// Config.Retention in batches of PruneBatch, at most PruneBatches of them
// a tick (the rest waits for the next tick), and keeps the current day's
// and month's counters; two replicas sweeping the same database at once
// delete each record once, and nothing more.
func TestMeterRetention(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		cfg := Config{Retention: 400 * 24 * time.Hour, PruneBatch: 2, PruneBatches: 2}
		m, _, _ := newMeter(t, db, cfg)
		retentionFixture(t, m.Store())
		steps := []struct {
			deleted int64
			left    []string
		}{
			{4, []string{"old5", "edge", "lastmonth", "today"}},
			{1, []string{"edge", "lastmonth", "today"}},
			{0, []string{"edge", "lastmonth", "today"}},
		}
		for i, s := range steps {
			n, err := m.prune(ctx)
			if err != nil || n != s.deleted {
				t.Fatalf("tick %d: prune = %d, %v; want %d", i, n, err, s.deleted)
			}
			if got := storedIDs(t, m.Store()); !reflect.DeepEqual(got, s.left) {
				t.Fatalf("tick %d: records left %q, want %q", i, got, s.left)
			}
		}
		if got := storedCounters(t, m.Store()); !reflect.DeepEqual(got, wantCounters) {
			t.Errorf("counters after pruning: %v, want %v", got, wantCounters)
		}

		// Two replicas at once, on a fresh set: together they delete the
		// five old records, once each.
		if _, err := m.Store().pool.Exec(ctx, `DELETE FROM usage_records`); err != nil {
			t.Fatal(err)
		}
		retentionFixture(t, m.Store())
		other, _, _ := newMeter(t, db, cfg)
		results := make(chan int64, 2)
		for _, r := range []*Meter{m, other} {
			go func() {
				n, err := r.prune(ctx)
				if err != nil {
					t.Error(err)
				}
				results <- n
			}()
		}
		total := <-results + <-results
		if more, _ := m.prune(ctx); total+more != 5 {
			t.Errorf("the replicas deleted %d records, then %d more; want 5 in all", total, more)
		}
		if got := storedIDs(t, m.Store()); !reflect.DeepEqual(got, []string{"edge", "lastmonth", "today"}) {
			t.Errorf("records left after two replicas pruned: %q", got)
		}
	})
}

// TestRetentionBounds: a retention under a month is refused; none is the
// default.
func TestRetentionBounds(t *testing.T) {
	st := openStore(t, filepath.Join(t.TempDir(), "usage.db"))
	if _, err := New(st, Config{Retention: 30 * 24 * time.Hour}); err == nil ||
		err.Error() != "usage: retention 720h0m0s is under 744h0m0s: the current month's records are kept" {
		t.Errorf("a 30-day retention: %v", err)
	}
	m, err := New(st, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.cfg.Retention != DefaultRetention || m.cfg.PruneBatch != 1000 || m.cfg.PruneBatches != 10 {
		t.Errorf("defaults: %s %d %d", m.cfg.Retention, m.cfg.PruneBatch, m.cfg.PruneBatches)
	}
}
