package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

// TestRefusal: a handler's Refusal (wrapped or not) makes its message DEAD
// at once with the refusal's code and error: one attempt, no failure,
// neither retried (its RetryCount is 3), escalated (it names EscalateTo)
// nor run by its fallback. A fallback that refuses leaves the message of
// a failed run DEAD with the refusal's code, its error noting it.
func TestRefusal(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		var c calls
		var escalated, fellBack atomic.Int64
		q := openQueue(t, db, Config{
			Handler: func(_ context.Context, env Envelope) (json.RawMessage, error) {
				c.add(env.ID)
				switch env.ID {
				case "refused":
					return nil, fmt.Errorf("delivering: %w", &Refusal{Code: "FORBIDDEN", Message: "the key that sent this hand-off was revoked"})
				default: // "failed": its fallback refuses
					return nil, errors.New("the model is down")
				}
			},
			Escalate: func(_ context.Context, env Envelope, _ error) (*Envelope, error) {
				escalated.Add(1)
				return nil, nil
			},
			Fallback: func(_ context.Context, env Envelope, _ error) (json.RawMessage, error) {
				fellBack.Add(1)
				if env.ID == "refused" {
					return json.RawMessage(`"fell back"`), nil
				}
				return nil, &Refusal{Code: "FORBIDDEN", Message: "the key that sent this hand-off was revoked"}
			},
		})
		enqueue(t, q, Envelope{ID: "refused", RetryCount: 3, EscalateTo: "boss", FallbackAction: "logger"})
		enqueue(t, q, Envelope{ID: "failed", FallbackAction: "logger"})
		start(t, q)

		rec := waitFinal(t, q, "refused")
		got := fmt.Sprintf("%s %s %q attempts=%d failures=%d escalated=%q fallback=%v result=%s finished=%v",
			rec.Status, rec.Code, rec.Error, rec.Attempts, rec.Failures, rec.EscalatedTo, rec.FallbackRan, rec.Result, !rec.FinishedAt.IsZero())
		want := `DEAD FORBIDDEN "FORBIDDEN: the key that sent this hand-off was revoked" attempts=1 failures=0 escalated="" fallback=false result= finished=true`
		if got != want {
			t.Errorf("the refused message:\n%s\nwant\n%s", got, want)
		}
		rec = waitFinal(t, q, "failed")
		got = fmt.Sprintf("%s %s %q attempts=%d failures=%d fallback=%v", rec.Status, rec.Code, rec.Error, rec.Attempts, rec.Failures, rec.FallbackRan)
		want = `DEAD FORBIDDEN "the model is down; fallback logger failed: FORBIDDEN: the key that sent this hand-off was revoked" attempts=1 failures=1 fallback=false`
		if got != want {
			t.Errorf("the failed message whose fallback refused:\n%s\nwant\n%s", got, want)
		}
		if n := c.count("refused"); n != 1 || escalated.Load() != 0 || fellBack.Load() != 1 {
			t.Errorf("the refused message ran %d times; %d escalations, %d fallbacks (the failed one's)", n, escalated.Load(), fellBack.Load())
		}
	})
}

// TestUnavailable: a handler that could not tell whether its message may
// run (Unavailable) has it QUEUED again, its error saying why, its
// failures unchanged; River runs the job again (after about a second)
// and the message completes, its retry_count of 0 notwithstanding. A
// fallback that could not tell is run again the same way: the message's
// run failed, its fallback runs once it can tell.
func TestUnavailable(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		var c calls
		queuedAgain := make(chan Record, 1)
		var fallbacks atomic.Int64
		var q *Queue
		q = openQueue(t, db, Config{Handler: func(ctx context.Context, env Envelope) (json.RawMessage, error) {
			if env.ID == "fb" {
				return nil, errors.New("the model is down")
			}
			if c.add(env.ID) == 1 {
				return nil, Unavailable(errors.New("checking the key k1: the keys' store is down"))
			}
			rec, err := q.Get(ctx, env.ID)
			if err != nil {
				return nil, err
			}
			queuedAgain <- rec
			return json.RawMessage(`"ran"`), nil
		}, Fallback: func(context.Context, Envelope, error) (json.RawMessage, error) {
			if fallbacks.Add(1) == 1 {
				return nil, Unavailable(errors.New("checking the key k1: the keys' store is down"))
			}
			return json.RawMessage(`"fell back"`), nil
		}})
		enqueue(t, q, Envelope{ID: "m"})
		enqueue(t, q, Envelope{ID: "fb", FallbackAction: "logger"})
		start(t, q)
		if rec := waitFinal(t, q, "fb"); rec.Status != StatusFailed || !rec.FallbackRan || string(rec.Result) != `"fell back"` ||
			rec.Failures != 1 || rec.Error != "the model is down" || fallbacks.Load() != 2 {
			t.Errorf("the message whose fallback could not tell at first: %+v, %d fallbacks", rec, fallbacks.Load())
		}
		rec := waitFinal(t, q, "m")
		if rec.Status != StatusCompleted || string(rec.Result) != `"ran"` || rec.Failures != 0 || rec.Code != "" || c.count("m") != 2 {
			t.Fatalf("record: %+v, %d runs", rec, c.count("m"))
		}
		// What the second run found: RUNNING again (its second attempt),
		// with the first one's reason and no failure.
		if seen := <-queuedAgain; seen.Status != StatusRunning || seen.Attempts != 2 || seen.Failures != 0 ||
			seen.Error != "checking the key k1: the keys' store is down" {
			t.Errorf("the message as its second run found it: %+v", seen)
		}
		if Unavailable(nil) != nil || IsUnavailable(errors.New("x")) || !IsUnavailable(fmt.Errorf("w: %w", Unavailable(errors.New("x")))) {
			t.Error("Unavailable(nil), or IsUnavailable, is wrong")
		}
	})
}
