package queue

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/testclock"
)

// TestStats: the depth and the oldest queuing time of each status that is
// not final; final messages are not counted.
func TestStats(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
		clk := testclock.New(t0)
		q := openQueue(t, db, Config{Now: clk.Now, Handler: func(context.Context, Envelope) (json.RawMessage, error) { return nil, nil }})
		ctx := context.Background()
		check := func(want []StatusStats) {
			t.Helper()
			got, err := q.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("Stats = %+v, want %+v", got, want)
			}
			for i := range want {
				if got[i].Status != want[i].Status || got[i].Count != want[i].Count || !got[i].Oldest.Equal(want[i].Oldest) {
					t.Errorf("Stats[%d] = %+v, want %+v", i, got[i], want[i])
				}
			}
		}
		check([]StatusStats{{Status: StatusQueued}, {Status: StatusRunning}})
		for _, id := range []string{"m1", "m2", "m3", "m4"} {
			enqueue(t, q, Envelope{ID: id})
			clk.Advance(time.Second)
		}
		// The queue is not started: set statuses by hand.
		for id, st := range map[string]Status{"m1": StatusCompleted, "m2": StatusRunning} {
			if _, err := q.b.conn().Exec(ctx, `UPDATE handoff_messages SET status = ? WHERE id = ?`, string(st), id); err != nil {
				t.Fatal(err)
			}
		}
		check([]StatusStats{{Status: StatusQueued, Count: 2, Oldest: t0.Add(2 * time.Second)}, {Status: StatusRunning, Count: 1, Oldest: t0.Add(time.Second)}})
	})
}
