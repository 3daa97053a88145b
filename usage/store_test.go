package usage

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 29, 13, 0, 0, 0, time.UTC)

// TestStoreSummary: records written in a batch are added up by each
// dimension, since a time, and for one key.
func TestStoreSummary(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		st := openStore(t, db)
		recs := []Record{
			{At: t0, RequestID: "r1", Source: "http", Key: "k1", User: "ada", Team: "core", Agent: "review", Model: "gpt-4o", In: 100, Out: 20, Cost: 450_000},
			{At: t0.Add(time.Minute), Key: "k1", User: "ada", Team: "core", Agent: "chat", Model: "gpt-4o-mini", In: 10, Out: 5, Estimated: true, Cost: 4_500},
			{At: t0.Add(2 * time.Minute), Key: "k2", User: "bob", Team: "core", Agent: "review", Model: "gpt-4o", In: 1, Out: 1, Cost: 12_500},
			{At: t0.Add(-time.Hour), Key: "k2", Agent: "review", Model: "gpt-4o", In: 1000, Out: 1000},
		}
		if err := st.Write(ctx, recs, nil); err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			q    Query
			want []Row
		}{
			{Query{By: ByModel, Since: t0}, []Row{
				{Value: "gpt-4o", Requests: 2, TokensIn: 101, TokensOut: 21, Cost: 0.0004625},
				{Value: "gpt-4o-mini", Requests: 1, TokensIn: 10, TokensOut: 5, Estimated: 1, Cost: 0.0000045}}},
			{Query{By: ByKey, Since: t0.Add(-2 * time.Hour)}, []Row{
				{Value: "k1", Requests: 2, TokensIn: 110, TokensOut: 25, Estimated: 1, Cost: 0.0004545},
				{Value: "k2", Requests: 2, TokensIn: 1001, TokensOut: 1001, Cost: 0.0000125}}},
			{Query{By: ByTeam, Since: t0}, []Row{{Value: "core", Requests: 3, TokensIn: 111, TokensOut: 26, Estimated: 1, Cost: 0.000467}}},
			{Query{By: ByUser, Since: t0, Key: "k2"}, []Row{{Value: "bob", Requests: 1, TokensIn: 1, TokensOut: 1, Cost: 0.0000125}}},
			{Query{By: ByAgent, Since: t0.Add(time.Hour)}, []Row{}},
		}
		for _, tt := range tests {
			got, err := st.Summary(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Summary(%+v) =\n%+v\nwant\n%+v", tt.q, got, tt.want)
			}
		}
		if _, err := st.Summary(ctx, Query{By: "key_id; DROP TABLE usage_records"}); err == nil {
			t.Error("Summary grouped by an unknown dimension")
		}
	})
}

// TestStoreReserve: a reservation is all or nothing across its counters,
// settlement adds the difference (never below zero), and expired
// counters are deleted.
func TestStoreReserve(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		st := openStore(t, db)
		day, month := t0.Add(11*time.Hour), t0.AddDate(0, 1, 0)
		both := func(n int64) []Charge {
			return []Charge{{Counter: "a", Amount: n, Limit: 100, Expires: day}, {Counter: "b", Amount: n, Limit: 150, Expires: month}}
		}
		steps := []struct {
			charges []Charge
			failed  int
			spent   []int64
		}{
			{both(60), -1, []int64{60, 60}},
			{both(60), 0, nil}, // a would be 120
			{[]Charge{{Counter: "b", Amount: 80, Limit: 150, Expires: month}}, -1, []int64{140}},
			{both(20), 1, nil}, // a fits, b would be 160: a is not charged
			{both(40), 1, nil},
			{[]Charge{{Counter: "c", Amount: 101, Limit: 100, Expires: day}}, 0, nil}, // over on its own
			{[]Charge{{Counter: "a", Amount: 40, Limit: 100, Expires: day}}, -1, []int64{100}},
		}
		for i, s := range steps {
			failed, spent, err := st.Reserve(ctx, s.charges)
			if err != nil || failed != s.failed || !reflect.DeepEqual(spent, s.spent) {
				t.Fatalf("step %d: Reserve = %d, %v, %v; want %d, %v", i, failed, spent, err, s.failed, s.spent)
			}
		}
		if err := st.Write(ctx, nil, map[string]int64{"a": -30, "b": -500, "nothing": 5}); err != nil {
			t.Fatal(err)
		}
		for c, want := range map[string]int64{"a": 70, "b": 0, "c": 0, "nothing": 0} {
			if got, err := st.Spent(ctx, c); err != nil || got != want {
				t.Errorf("Spent(%s) = %d, %v; want %d", c, got, err, want)
			}
		}
		if err := st.Expire(ctx, day.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		if got, _ := st.Spent(ctx, "a"); got != 0 {
			t.Errorf("a after its window: %d", got)
		}
		if failed, _, err := st.Reserve(ctx, both(100)); failed != -1 || err != nil {
			t.Errorf("after expiry: Reserve = %d, %v", failed, err)
		}
	})
}

// TestStoreReserveConcurrent: many goroutines, on two connections' worth
// of stores, reserve on one budget at once: exactly the budget's worth
// succeed and the counter never goes over.
func TestStoreReserveConcurrent(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		stores := []*Store{openStore(t, db), openStore(t, db)} // as two replicas
		const workers, limit, amount = 64, 1000, 30
		var ok atomic.Int64
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for i := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				charges := []Charge{{Counter: "team:x|tokens|d", Amount: amount, Limit: limit, Expires: t0.Add(time.Hour)},
					{Counter: fmt.Sprintf("key:%d|tokens|d", i%4), Amount: amount, Limit: 1 << 40, Expires: t0.Add(time.Hour)}}
				failed, _, err := stores[i%2].Reserve(ctx, charges)
				if err != nil {
					errs <- err
					return
				}
				if failed < 0 {
					ok.Add(1)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		spent, err := stores[0].Spent(ctx, "team:x|tokens|d")
		if err != nil {
			t.Fatal(err)
		}
		if ok.Load() != limit/amount || spent != ok.Load()*amount {
			t.Errorf("%d reservations succeeded, counter %d; want %d and %d", ok.Load(), spent, limit/amount, limit/amount*amount)
		}
		var keys int64
		for k := range 4 {
			n, _ := stores[1].Spent(ctx, fmt.Sprintf("key:%d|tokens|d", k))
			keys += n
		}
		if keys != spent {
			t.Errorf("the keys' counters add up to %d, the team's is %d: a failed reservation charged a key", keys, spent)
		}
	})
}

// BenchmarkReserve is one reservation on two counters (a team's tokens
// per day and requests per minute), as Admit takes it, on each backend.
func BenchmarkReserve(b *testing.B) {
	for _, be := range []struct {
		name  string
		newDB func(b *testing.B) string
	}{
		{"sqlite", func(b *testing.B) string { return b.TempDir() + "/usage.db" }},
		{"postgres", func(b *testing.B) string { return pgtestSchema(b) }},
	} {
		b.Run(be.name, func(b *testing.B) {
			st := openStore(b, be.newDB(b))
			ctx := context.Background()
			charges := []Charge{{Counter: "team:x|requests|t", Amount: 1, Limit: 1 << 50, Expires: t0},
				{Counter: "team:x|tokens|d", Amount: 1000, Limit: 1 << 50, Expires: t0}}
			for b.Loop() {
				if failed, _, err := st.Reserve(ctx, charges); failed >= 0 || err != nil {
					b.Fatal(failed, err)
				}
			}
		})
	}
}
