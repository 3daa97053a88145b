package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestStalledClientRestarted (bench/soak/README.md, O1): River's client
// stopped behind the queue's back (its producer gone, as a client that
// started without one would be) fetches nothing: a message queued then
// waits, with nothing logged. The heartbeat's watch finds its job
// available for a lease while no fetch came and a worker was free, logs it
// at WARN, restarts River's client, and the message runs. The 20 s bound
// is a guard against a hang (the watch fires after 3 heartbeats of 100 ms).
func TestStalledClientRestarted(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		var logs syncBuffer
		ran := make(chan string, 1)
		q := openQueue(t, db, Config{PollInterval: time.Hour, Heartbeat: 100 * time.Millisecond,
			Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn})),
			Handler: func(_ context.Context, env Envelope) (json.RawMessage, error) {
				ran <- env.ID
				return json.RawMessage(`"ok"`), nil
			}})
		startAwake(t, q)
		// River's client stops; the queue still takes it for running. The
		// message is queued before the heartbeat looks again, so that the
		// queue is busy and not dormant (which would start the client).
		q.riverMu.Lock()
		if err := q.b.stop(context.Background()); err != nil {
			q.riverMu.Unlock()
			t.Fatal(err)
		}
		enqueue(t, q, Envelope{ID: "m-stalled"})
		q.idleLooks = 0 // a look that found it idle just before does not stop it
		q.riverMu.Unlock()
		select {
		case id := <-ran:
			if id != "m-stalled" {
				t.Fatalf("ran %q", id)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("the message did not run: River's client was not restarted (log: %q)", logs.lines())
		}
		if waitFinal(t, q, "m-stalled").Status != StatusCompleted {
			t.Fatal("not COMPLETED")
		}
		if q.w.stalls.Load() == 0 {
			t.Error("no stall counted")
		}
		want := "River's client fetches no job while jobs wait and workers are free; restarting it"
		found := false
		for _, l := range logs.lines() {
			if strings.Contains(l, "level=WARN") && strings.Contains(l, want) && strings.Contains(l, "jobs_waiting=1 ") {
				found = true
			}
		}
		if !found {
			t.Errorf("no WARN %q with jobs_waiting=1 in %q", want, logs.lines())
		}
	})
}

// TestBusyWorkersAreNoStall: jobs waiting while every worker is in a
// handler (a backlog) are not a stall, however long they wait: River has
// nothing to fetch for. One worker, a handler longer than the watch's
// lease (3 heartbeats), three messages: all run, and no stall is counted.
func TestBusyWorkersAreNoStall(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		q := openQueue(t, db, Config{PollInterval: time.Hour, Heartbeat: 200 * time.Millisecond, Workers: 1,
			Handler: func(ctx context.Context, env Envelope) (json.RawMessage, error) {
				select {
				case <-ctx.Done():
				case <-time.After(700 * time.Millisecond):
				}
				return nil, nil
			}})
		start(t, q)
		for _, id := range []string{"m-1", "m-2", "m-3"} {
			enqueue(t, q, Envelope{ID: id})
		}
		for _, id := range []string{"m-1", "m-2", "m-3"} {
			if rec := waitFinal(t, q, id); rec.Status != StatusCompleted {
				t.Fatalf("%s: %s", id, rec.Status)
			}
		}
		if n := q.w.stalls.Load(); n != 0 {
			t.Errorf("%d stalls counted for a backlog behind a busy worker", n)
		}
	})
}

// TestPausedQueueIsWarned: River's queue paused (river_queue.paused_at,
// which River's producer obeys and nothing of the gateway's sets) leaves
// a message waiting; the watch says so at WARN, naming the pause, and
// does not restart River's client (a restart would not resume it). Once
// the queue is resumed, the message runs.
func TestPausedQueueIsWarned(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		var logs syncBuffer
		ran := make(chan string, 1)
		q := openQueue(t, db, Config{PollInterval: time.Hour, Heartbeat: 100 * time.Millisecond,
			Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn})),
			Handler: func(_ context.Context, env Envelope) (json.RawMessage, error) {
				ran <- env.ID
				return nil, nil
			}})
		// River's queue row exists once a client started; paused then, the
		// next start's producer is paused from the start.
		startAwake(t, q)
		if err := q.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
		pause, resume := riverPause(t, q)
		if err := pause(); err != nil {
			t.Fatal(err)
		}
		start(t, q)
		q.riverMu.Lock() // not dormant before the message makes it busy
		enqueue(t, q, Envelope{ID: "m-paused"})
		q.idleLooks = 0
		q.riverMu.Unlock()
		want := "River's queue handoff is paused (river_queue.paused_at)"
		deadline := time.Now().Add(20 * time.Second) // a guard against a hang
		for !strings.Contains(strings.Join(logs.lines(), "\n"), want) {
			if time.Now().After(deadline) {
				t.Fatalf("no WARN %q in %q", want, logs.lines())
			}
			time.Sleep(10 * time.Millisecond)
		}
		select {
		case id := <-ran:
			t.Fatalf("%s ran while River's queue was paused", id)
		default:
		}
		woken := q.w.woken.Load()
		if err := resume(); err != nil {
			t.Fatal(err)
		}
		if rec := waitFinal(t, q, "m-paused"); rec.Status != StatusCompleted {
			t.Fatalf("after the resume: %s", rec.Status)
		}
		if got := q.w.woken.Load(); got != woken {
			t.Errorf("River's client restarted %d times for a paused queue", got-woken)
		}
	})
}

// riverPause is River's pause and resume of the queue's River queue.
func riverPause(t *testing.T, q *Queue) (pause, resume func() error) {
	ctx := context.Background()
	switch b := q.b.(type) {
	case *riverBackend[*sql.Tx]:
		return func() error { return b.client.QueuePause(ctx, riverQueue, nil) },
			func() error { return b.client.QueueResume(ctx, riverQueue, nil) }
	case *riverBackend[pgx.Tx]:
		return func() error { return b.client.QueuePause(ctx, riverQueue, nil) },
			func() error { return b.client.QueueResume(ctx, riverQueue, nil) }
	}
	t.Fatalf("backend %T", q.b)
	return nil, nil
}
