package queue

import (
	"context"
	"encoding/json"
	"testing"
)

// TestStartWithHandlers: a queue built without handlers (the gateway
// builds it before the runner its handlers deliver through) queues and
// reads; Start without handlers refuses, Start with them runs what was
// queued before.
func TestStartWithHandlers(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		q := openQueue(t, db, Config{})
		enqueue(t, q, Envelope{ID: "m1", TaskID: "t1", Recipient: "a", Payload: json.RawMessage(`{}`)})
		if rec, err := q.Get(context.Background(), "m1"); err != nil || rec.Status != StatusQueued {
			t.Fatalf("before the start: %+v, %v", rec, err)
		}
		if err := q.Start(context.Background(), Handlers{}); err == nil {
			t.Fatal("Start without a handler started")
		}
		h := Handlers{Handler: func(context.Context, Envelope) (json.RawMessage, error) { return json.RawMessage(`"done"`), nil }}
		if err := q.Start(context.Background(), h); err != nil {
			t.Fatal(err)
		}
		if rec := waitFinal(t, q, "m1"); rec.Status != StatusCompleted || string(rec.Result) != `"done"` {
			t.Errorf("record: %+v", rec)
		}
	})
}
