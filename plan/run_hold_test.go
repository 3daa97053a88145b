package plan

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// errConsent stands for what a caller holds a step for.
var errConsent = errors.New("waits for consent")

// TestRunHold: a held step ends SKIPPED without retries, its dependents
// (directly or not) do not run, the independent steps run to the end, and
// Run's error wraps both ErrHold and the step's own error.
func TestRunHold(t *testing.T) {
	release := make(chan struct{})
	attempts := 0
	h := newHarness(t, []Node{
		{ID: "first"},
		{ID: "held", DependsOn: []string{"first"}, Retry: Retry{Limit: 3}},
		{ID: "after", DependsOn: []string{"held"}},
		{ID: "later", DependsOn: []string{"after"}},
		{ID: "beside", DependsOn: []string{"first"}},
		{ID: "slow"},
	}, map[string]stepFunc{
		"held": func(ctx context.Context, in Invocation) (any, error) {
			attempts++
			return nil, errors.Join(ErrHold, errConsent)
		},
		// slow finishes only after the hold: a hold does not cancel what runs.
		"slow": func(ctx context.Context, in Invocation) (any, error) {
			<-release
			return "slow!", ctx.Err()
		},
	})
	go func() {
		for {
			h.mu.Lock()
			n := h.finishes["held"]
			h.mu.Unlock()
			if n > 0 {
				close(release)
				return
			}
			select {
			case <-t.Context().Done():
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	rep, err := h.run(context.Background(), Options{})
	if !errors.Is(err, ErrHold) || !errors.Is(err, errConsent) || !strings.Contains(err.Error(), `step "held" held`) {
		t.Fatalf("err = %v", err)
	}
	var se *StepError
	if errors.As(err, &se) {
		t.Fatalf("a hold is not a failure: %v", err)
	}
	if got := strings.Join(statuses(rep), " "); got != "first=COMPLETED held=SKIPPED after=SKIPPED later=SKIPPED beside=COMPLETED slow=COMPLETED" {
		t.Errorf("statuses = %s", got)
	}
	if attempts != 1 || rep.Results[1].Attempts != 1 {
		t.Errorf("a held step is not retried: %d attempts", attempts)
	}
	for _, i := range []int{2, 3} {
		if r := rep.Results[i]; !errors.Is(r.Err, ErrHold) || r.Attempts != 0 {
			t.Errorf("%s: %v (%d attempts)", r.ID, r.Err, r.Attempts)
		}
	}
	if e := rep.Results[2].Err.Error(); e != `not started: step "held" is held: step held` {
		t.Errorf("after's error = %s", e)
	}
}

// TestRunHoldThenFailure: a failure elsewhere still fails the plan.
func TestRunHoldThenFailure(t *testing.T) {
	h := newHarness(t, []Node{
		{ID: "held"},
		{ID: "bad", DependsOn: []string{"held2"}},
		{ID: "held2"},
	}, map[string]stepFunc{
		"held": func(ctx context.Context, in Invocation) (any, error) {
			return nil, ErrHold
		},
		"held2": func(ctx context.Context, in Invocation) (any, error) { return 1, nil },
		"bad":   func(ctx context.Context, in Invocation) (any, error) { return nil, errors.New("boom") },
	})
	_, err := h.run(context.Background(), Options{Parallel: 1})
	var se *StepError
	if !errors.As(err, &se) || se.ID != "bad" {
		t.Fatalf("err = %v", err)
	}
}
