package queue

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestEnqueueWakesTheQueue: a message this process queues starts at once,
// through the queue's own wake (River's NOTIFY on Postgres, the listener
// woken after the commit on SQLite), not at a poll: with an hour between
// polls, it runs, and on SQLite the listener read the notification table
// because it was woken.
func TestEnqueueWakesTheQueue(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ran := make(chan string, 1)
		q := openQueue(t, db, Config{PollInterval: time.Hour,
			Handler: func(_ context.Context, env Envelope) (json.RawMessage, error) {
				ran <- env.ID
				return json.RawMessage(`"ok"`), nil
			}})
		start(t, q)
		// Let the start's first looks pass, then queue.
		time.Sleep(200 * time.Millisecond)
		wakes := q.w.wakes.Load()
		enqueue(t, q, Envelope{ID: "m-wake"})
		select {
		case id := <-ran:
			if id != "m-wake" {
				t.Fatalf("ran %q", id)
			}
		case <-time.After(20 * time.Second): // an hour's poll would not have come
			t.Fatal("the message did not start: nothing woke the queue")
		}
		if q.b.(interface{ forUpdate() string }).forUpdate() == "" { // SQLite
			if got := q.w.wakes.Load(); got <= wakes {
				t.Errorf("wakes = %d after the enqueue, %d before: the listener was not woken", got, wakes)
			}
		}
	})
}

// TestIdleQueueDoesNotFetch: a started queue with nothing to do, once it
// has stopped River's client, does not look for jobs (River's fetch of
// available jobs, which polls every second while the client runs), nor
// read the notification table (SQLite) but at a poll.
func TestIdleQueueDoesNotFetch(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		q := openQueue(t, db, Config{PollInterval: time.Hour, Heartbeat: 100 * time.Millisecond,
			Handler: func(context.Context, Envelope) (json.RawMessage, error) { return nil, nil }})
		start(t, q)
		deadline := time.Now().Add(10 * time.Second)
		for q.w.dormant.Load() == 0 { // idle: River's client stops
			if time.Now().After(deadline) {
				t.Fatal("idle for 10s (100 heartbeats), River's client still runs")
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond) // a fetch under way as it stopped
		fetches, looks := q.w.fetches.Load(), q.w.looks.Load()
		time.Sleep(3 * time.Second) // idle
		if got := q.w.fetches.Load(); got != fetches {
			t.Errorf("idle for 3s: %d fetches of available jobs (want none)", got-fetches)
		}
		if got := q.w.looks.Load(); got != looks {
			t.Errorf("idle for 3s: %d reads of the notification table (want none)", got-looks)
		}
	})
}

// TestIdleQueueGoesDormant: a started queue that finds nothing to do for
// two heartbeats stops River's client; a message queued then starts it
// again at once, and runs.
func TestIdleQueueGoesDormant(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ran := make(chan string, 1)
		q := openQueue(t, db, Config{PollInterval: time.Hour, Heartbeat: 100 * time.Millisecond,
			Handler: func(_ context.Context, env Envelope) (json.RawMessage, error) {
				ran <- env.ID
				return nil, nil
			}})
		start(t, q)
		deadline := time.Now().Add(10 * time.Second)
		for q.w.dormant.Load() == 0 {
			if time.Now().After(deadline) {
				t.Fatal("idle for 10s (100 heartbeats), River's client still runs")
			}
			time.Sleep(10 * time.Millisecond)
		}
		woken := q.w.woken.Load()
		enqueue(t, q, Envelope{ID: "m-dormant"})
		select {
		case <-ran:
		case <-time.After(20 * time.Second):
			t.Fatal("the message queued while dormant did not run")
		}
		if got := q.w.woken.Load(); got != woken+1 {
			t.Errorf("River's client started %d times for the message, want 1", got-woken)
		}
	})
}

// TestQueueStartsDormant: a queue with nothing to do starts without River's
// client (nothing of it runs, no fetch) and starts it for the first
// message; one that finds a message QUEUED when it starts starts it at
// once, and the message runs.
func TestQueueStartsDormant(t *testing.T) {
	riverOn := func(q *Queue) bool {
		q.riverMu.Lock()
		defer q.riverMu.Unlock()
		return q.riverOn
	}
	eachBackend(t, func(t *testing.T, db string) {
		ran := make(chan string, 2)
		handler := func(_ context.Context, env Envelope) (json.RawMessage, error) {
			ran <- env.ID
			return nil, nil
		}
		t.Run("idle", func(t *testing.T) {
			q := openQueue(t, db, Config{PollInterval: time.Hour, Heartbeat: time.Hour, Handler: handler})
			start(t, q)
			if riverOn(q) || q.w.dormant.Load() != 1 || q.w.fetches.Load() != 0 {
				t.Fatalf("started idle: River's client on %v, dormant %d, fetches %d; want off, 1, 0",
					riverOn(q), q.w.dormant.Load(), q.w.fetches.Load())
			}
			enqueue(t, q, Envelope{ID: "m-first"})
			if rec := waitFinal(t, q, "m-first"); rec.Status != StatusCompleted {
				t.Errorf("the first message: %s, want %s", rec.Status, StatusCompleted)
			}
			if got := q.w.woken.Load(); got != 1 {
				t.Errorf("River's client started %d times for the first message, want 1", got)
			}
		})
		t.Run("work waiting", func(t *testing.T) {
			q := openQueue(t, db, Config{PollInterval: time.Hour, Heartbeat: time.Hour, Handler: handler})
			enqueue(t, q, Envelope{ID: "m-waiting"})
			start(t, q)
			if !riverOn(q) || q.w.dormant.Load() != 0 {
				t.Errorf("started with a message queued: River's client on %v, dormant %d; want on, 0", riverOn(q), q.w.dormant.Load())
			}
			if rec := waitFinal(t, q, "m-waiting"); rec.Status != StatusCompleted {
				t.Errorf("the waiting message: %s, want %s", rec.Status, StatusCompleted)
			}
		})
	})
}
