package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestReplicasDrain: two queues on one database, as two replicas of the
// gateway (each with its own connections), drain 50 messages queued
// through both while both run: every message runs exactly once and
// completes.
func TestReplicasDrain(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		const messages = 50
		var mu sync.Mutex
		ranBy := map[string][]string{}
		handler := func(replica string) Handler {
			return func(ctx context.Context, env Envelope) (json.RawMessage, error) {
				mu.Lock()
				ranBy[env.ID] = append(ranBy[env.ID], replica)
				mu.Unlock()
				time.Sleep(time.Millisecond) // a little work, so that both replicas take some
				return json.Marshal(replica)
			}
		}
		a := openQueue(t, db, Config{Handler: handler("a")})
		b := openQueue(t, db, Config{Handler: handler("b")})
		start(t, a)
		start(t, b)
		for i := range messages {
			q := a
			if i%2 == 1 {
				q = b
			}
			enqueue(t, q, Envelope{ID: fmt.Sprint("m", i), TaskID: "drain", Priority: 1 + i%4})
		}
		perReplica := map[string]int{}
		for i := range messages {
			id := fmt.Sprint("m", i)
			rec := waitFinal(t, a, id)
			mu.Lock()
			runs := append([]string(nil), ranBy[id]...)
			mu.Unlock()
			if rec.Status != StatusCompleted || rec.Attempts != 1 || len(runs) != 1 || string(rec.Result) != fmt.Sprintf("%q", runs[0]) {
				t.Errorf("%s: ran by %v; record %+v", id, runs, rec)
				continue
			}
			perReplica[runs[0]]++
		}
		task, err := b.Task(context.Background(), "drain")
		if err != nil || len(task) != messages {
			t.Errorf("Task(drain): %d records, %v", len(task), err)
		}
		t.Logf("messages run by replica: %v", perReplica)
	})
}

// TestReplicasStartAtOnce: queues opened at once on a new database, as
// replicas starting together, all migrate without error and leave one
// record of each step.
func TestReplicasStartAtOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		const replicas = 4
		qs := make([]*Queue, replicas)
		var wg sync.WaitGroup
		for i := range replicas {
			wg.Go(func() {
				q, err := tryOpenQueue(t, db, Config{Handler: func(context.Context, Envelope) (json.RawMessage, error) { return nil, nil }})
				if err != nil {
					t.Errorf("replica %d: %v", i, err)
				}
				qs[i] = q
			})
		}
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		var n int64
		if err := qs[0].b.conn().QueryRow(context.Background(), `SELECT count(*) FROM handoff_migrations`).Scan(&n); err != nil || n != int64(len(sqliteMigrations)) {
			t.Errorf("handoff_migrations: %d rows, %v", n, err)
		}
		if err := qs[0].b.conn().QueryRow(context.Background(), `SELECT count(*) FROM river_migration`).Scan(&n); err != nil || n == 0 {
			t.Errorf("river_migration: %d rows, %v", n, err)
		}
		enqueue(t, qs[1], Envelope{ID: "works"})
	})
}
