package queue

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"
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
		start(t, q)
		// River's client stops; the queue still takes it for running. The
		// message is queued before the heartbeat looks again, so that the
		// queue is busy and not dormant (which would start the client).
		q.riverMu.Lock()
		if err := q.b.stop(context.Background()); err != nil {
			q.riverMu.Unlock()
			t.Fatal(err)
		}
		enqueue(t, q, Envelope{ID: "m-stalled"})
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
