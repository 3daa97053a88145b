package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/testclock"
)

// TestExpiredBetweenRetries (issue 25, item 8): a message that fails and
// expires while it waits for its retry is not reported as expired "before
// it ran": its record says how many runs it had and the last failure, and
// its failure strategy applies as for spent retries: its escalation (which
// does not inherit the passed expiry) or its fallback takes it over
// (FAILED); with neither it is EXPIRED. The clock is a fake one, advanced
// by the failing run.
func TestExpiredBetweenRetries(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		clock := testclock.New(time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC))
		var c, fallbacks calls
		q := openQueue(t, db, Config{Now: clock.Now,
			Handler: func(ctx context.Context, env Envelope) (json.RawMessage, error) {
				n := c.add(env.ID)
				if env.Recipient == "oncall" {
					return json.RawMessage(`"paged"`), nil
				}
				clock.Advance(time.Hour) // past its expiry when it would retry
				return nil, fmt.Errorf("%s is busy (run %d)", env.Recipient, n)
			},
			Fallback: func(ctx context.Context, env Envelope, lastErr error) (json.RawMessage, error) {
				fallbacks.add(env.ID)
				return json.Marshal(map[string]string{"action": env.FallbackAction, "after": lastErr.Error()})
			},
		})
		start(t, q)
		expiry := func() time.Time { return clock.Now().Add(time.Minute) }
		const why = "expired at %s after 1 attempt (1 failed), before its retry; the last failure: reviewer is busy (run 1)"

		exp := expiry()
		enqueue(t, q, Envelope{ID: "escalates", TaskID: "t", Recipient: "reviewer", RetryCount: 3, ExpiresAt: exp,
			EscalateTo: "oncall", FallbackAction: "notify"})
		rec := waitFinal(t, q, "escalates")
		wantErr := fmt.Sprintf(why, exp.Format(time.RFC3339Nano))
		if rec.Status != StatusFailed || rec.Attempts != 1 || rec.Failures != 1 || rec.FallbackRan ||
			rec.EscalatedTo != EscalationID("escalates") || rec.Error != wantErr {
			t.Errorf("escalates: %+v\nwant error %q", rec, wantErr)
		}
		next := waitFinal(t, q, EscalationID("escalates"))
		if next.Status != StatusCompleted || string(next.Result) != `"paged"` || next.EscalatedFrom != "escalates" ||
			!next.ExpiresAt.IsZero() || next.TaskID != "t" {
			t.Errorf("its escalation: %+v", next)
		}

		exp = expiry()
		enqueue(t, q, Envelope{ID: "falls-back", Recipient: "reviewer", RetryCount: 3, ExpiresAt: exp, FallbackAction: "notify"})
		rec = waitFinal(t, q, "falls-back")
		wantErr = fmt.Sprintf(why, exp.Format(time.RFC3339Nano))
		wantRes, _ := json.Marshal(map[string]string{"action": "notify", "after": wantErr})
		if rec.Status != StatusFailed || !rec.FallbackRan || rec.Attempts != 1 || rec.Error != wantErr || string(rec.Result) != string(wantRes) {
			t.Errorf("falls-back: %+v %s", rec, rec.Result)
		}

		exp = expiry()
		enqueue(t, q, Envelope{ID: "expires", Recipient: "reviewer", RetryCount: 3, ExpiresAt: exp})
		rec = waitFinal(t, q, "expires")
		wantErr = fmt.Sprintf(why, exp.Format(time.RFC3339Nano))
		if rec.Status != StatusExpired || rec.Attempts != 1 || rec.Failures != 1 || rec.Error != wantErr {
			t.Errorf("expires: %+v\nwant error %q", rec, wantErr)
		}
		for _, id := range []string{"escalates", "falls-back", "expires"} {
			if n := c.count(id); n != 1 {
				t.Errorf("%s ran %d times, want 1", id, n)
			}
		}
		if got := fallbacks.sequence(); len(got) != 1 || got[0] != "falls-back" {
			t.Errorf("fallbacks ran for %v", got)
		}
	})
}
