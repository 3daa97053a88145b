package plan

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// blockUntilDone is a step that signals it started and waits for its context; then it waits for late
// (if not nil), so that it returns after the scheduler moved on.
func blockUntilDone(started chan<- struct{}, late <-chan struct{}) stepFunc {
	return func(ctx context.Context, in Invocation) (any, error) {
		if started != nil {
			close(started)
		}
		<-ctx.Done()
		if late != nil {
			<-late
		}
		return nil, ctx.Err()
	}
}

func TestRunOnErrorFail(t *testing.T) {
	bStarted := make(chan struct{})
	h := newHarness(t, []Node{
		{ID: "a"},
		{ID: "b", Output: mustOut(t, "state.b || state.bErr")},
		{ID: "c", DependsOn: []string{"a"}},
		{ID: "d", DependsOn: []string{"b"}},
	}, map[string]stepFunc{
		"a": func(ctx context.Context, in Invocation) (any, error) {
			<-bStarted
			return nil, errors.New("boom")
		},
		"b": blockUntilDone(bStarted, nil),
	})
	rep, err := h.run(context.Background(), Options{})
	var se *StepError
	if !errors.As(err, &se) || se.ID != "a" || se.Status != Failed || se.Err.Error() != "boom" || err.Error() != `step "a" FAILED: boom` {
		t.Fatalf("err = %v", err)
	}
	if got := strings.Join(statuses(rep), " "); got != "a=FAILED b=FAILED c=SKIPPED d=SKIPPED" {
		t.Errorf("statuses = %s", got)
	}
	if e := rep.Results[1].Err; !errors.Is(e, context.Canceled) || e.Error() != `cancelled because step "a" failed` {
		t.Errorf("b's error = %v", e)
	}
	if e := rep.Results[2].Err; e == nil || e.Error() != `not started: step "a" failed` {
		t.Errorf("c's error = %v", e)
	}
	if want := map[string]any{"bErr": map[string]any{"status": "FAILED", "message": `cancelled because step "a" failed`}}; !reflect.DeepEqual(rep.State, want) {
		t.Errorf("state = %v", rep.State)
	}
}

// TestRunWaitsForCancelledExec makes the cancelled step return only after OnFinish of the failing step,
// so that Run must wait for an Exec that outlives the scheduler's decision to stop.
func TestRunWaitsForCancelledExec(t *testing.T) {
	bStarted, late := make(chan struct{}), make(chan struct{})
	h := newHarness(t, []Node{{ID: "a"}, {ID: "b"}}, map[string]stepFunc{
		"a": func(ctx context.Context, in Invocation) (any, error) {
			<-bStarted
			return nil, errors.New("boom")
		},
		"b": blockUntilDone(bStarted, late),
	})
	rep, err := h.plan.Run(context.Background(), h.exec, Options{OnFinish: func(step int, r Result) {
		if r.ID == "a" {
			close(late)
		}
	}})
	if n := h.inflight.Load(); n != 0 {
		t.Fatalf("Run returned with %d Execs running", n)
	}
	if err == nil || rep.Results[1].Status != Failed {
		t.Errorf("err = %v, b = %s", err, rep.Results[1].Status)
	}
}

func TestRunOnErrorContinue(t *testing.T) {
	h := newHarness(t, []Node{
		{ID: "a", OnError: OnErrorContinue},
		{ID: "fix", When: mustCond(t, "dependencies.a.status == 'FAILED'")},
		{ID: "use", When: mustCond(t, "dependencies.a.status == 'COMPLETED'")},
	}, map[string]stepFunc{"a": func(ctx context.Context, in Invocation) (any, error) { return nil, errors.New("boom") }})
	rep, err := h.run(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(statuses(rep), " "); got != "a=FAILED fix=COMPLETED use=SKIPPED" {
		t.Errorf("statuses = %s", got)
	}
}

func TestRunTimeoutFailsPlan(t *testing.T) {
	h := newHarness(t, []Node{{ID: "a", Timeout: time.Millisecond}, {ID: "b", DependsOn: []string{"a"}}},
		map[string]stepFunc{"a": blockUntilDone(nil, nil)})
	rep, err := h.run(context.Background(), Options{})
	var se *StepError
	if !errors.As(err, &se) || se.Status != Timeout || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if got := strings.Join(statuses(rep), " "); got != "a=TIMEOUT b=SKIPPED" {
		t.Errorf("statuses = %s", got)
	}
}

func TestRunPlanTimeout(t *testing.T) {
	h := newHarness(t, []Node{
		{ID: "a", Retry: Retry{Limit: 5, Backoff: time.Millisecond}, OnError: OnErrorContinue},
		{ID: "b", DependsOn: []string{"a"}},
		{ID: "quick"},
	}, map[string]stepFunc{"a": blockUntilDone(nil, nil)})
	rep, err := h.run(context.Background(), Options{Timeout: 5 * time.Millisecond})
	if !errors.Is(err, ErrPlanTimeout) || err.Error() != "running plan: plan timed out after 5ms" {
		t.Fatalf("err = %v", err)
	}
	if got := strings.Join(statuses(rep), " "); got != "a=TIMEOUT b=SKIPPED quick=COMPLETED" {
		t.Errorf("statuses = %s", got)
	}
	if r := rep.Results[0]; !errors.Is(r.Err, ErrPlanTimeout) || r.Attempts != 1 {
		t.Errorf("a = %d attempts, %v (no retry once the plan ended)", r.Attempts, r.Err)
	}
	if e := rep.Results[1].Err; !errors.Is(e, ErrPlanTimeout) || e.Error() != "not started: plan timed out" {
		t.Errorf("b's error = %v", e)
	}
}

func TestRunCallerCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := newHarness(t, []Node{{ID: "a", OnError: OnErrorContinue}, {ID: "b", DependsOn: []string{"a"}}},
		map[string]stepFunc{"a": func(c context.Context, in Invocation) (any, error) {
			cancel()
			<-c.Done()
			return nil, c.Err()
		}})
	rep, err := h.run(ctx, Options{Timeout: time.Hour})
	if err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got := strings.Join(statuses(rep), " "); got != "a=FAILED b=SKIPPED" {
		t.Errorf("statuses = %s", got)
	}
	if !errors.Is(rep.Results[0].Err, context.Canceled) {
		t.Errorf("a's error = %v", rep.Results[0].Err)
	}
}

func TestRunCallerDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Millisecond)
	defer cancel()
	h := newHarness(t, []Node{{ID: "a"}, {ID: "b", DependsOn: []string{"a"}}}, map[string]stepFunc{"a": blockUntilDone(nil, nil)})
	rep, err := h.run(ctx, Options{})
	if err != context.DeadlineExceeded {
		t.Fatalf("err = %v", err)
	}
	if got := strings.Join(statuses(rep), " "); got != "a=TIMEOUT b=SKIPPED" {
		t.Errorf("statuses = %s", got)
	}
}

func TestRunContextAlreadyDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h := newHarness(t, []Node{{ID: "a"}}, nil)
	rep, err := h.run(ctx, Options{})
	if err != context.Canceled || rep.Results[0].Status != Skipped || len(h.events) != 1 {
		t.Errorf("err = %v, a = %s, events %q", err, rep.Results[0].Status, h.events)
	}
}

func TestRunNilExec(t *testing.T) {
	p, _ := NewPlan([]Node{{ID: "a"}})
	if _, err := p.Run(context.Background(), nil, Options{}); err == nil {
		t.Error("no error for a nil Exec")
	}
}

func TestRunPlanTimeoutDuringBackoff(t *testing.T) {
	h := newHarness(t, []Node{{ID: "a", Retry: Retry{Limit: 5, Backoff: time.Hour}}}, map[string]stepFunc{
		"a": func(ctx context.Context, in Invocation) (any, error) { return nil, errors.New("flaky") },
	})
	rep, err := h.run(context.Background(), Options{Timeout: 5 * time.Millisecond})
	if !errors.Is(err, ErrPlanTimeout) {
		t.Fatalf("err = %v", err)
	}
	r := rep.Results[0]
	if r.Status != Timeout || r.Attempts != 1 || !errors.Is(r.Err, ErrPlanTimeout) ||
		r.Err.Error() != "interrupted: plan timed out (waiting to retry after: flaky)" {
		t.Errorf("a = %s, %d attempts, %v", r.Status, r.Attempts, r.Err)
	}
}

// TestAttemptsAfterStop covers a step handed to a worker just as the plan stopped: it never runs.
func TestAttemptsAfterStop(t *testing.T) {
	p, _ := NewPlan([]Node{{ID: "a"}})
	ctx, stop := context.WithCancelCause(context.Background())
	stop(stopCause{id: "x"})
	called := false
	r := newRunner(p, func(context.Context, int, Invocation) (any, error) { called = true; return nil, nil },
		Options{}, context.Background(), ctx, stop)
	res := r.attempts(0, Invocation{})
	if called || res.Status != Skipped || res.Attempts != 0 || !errors.Is(res.Err, context.Canceled) ||
		res.Err.Error() != `not started: cancelled because step "x" failed` {
		t.Errorf("called=%v result=%+v", called, res)
	}
}

// TestRunKindTimeout: an Exec error wrapping ErrTimeout (a deadline of the kind's own, such as a
// tool's) ends the attempt TIMEOUT like the step's deadline, is retried like it, and stops the plan
// with a TIMEOUT *StepError.
func TestRunKindTimeout(t *testing.T) {
	tests := []struct {
		name    string
		onError OnError
		want    string
	}{
		{"fail", OnErrorFail, "tool=TIMEOUT after=SKIPPED"},
		{"continue", OnErrorContinue, "tool=TIMEOUT after=COMPLETED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, []Node{
				{ID: "tool", Retry: Retry{Limit: 1}, OnError: tt.onError},
				{ID: "after", DependsOn: []string{"tool"}},
			}, map[string]stepFunc{
				"tool": func(ctx context.Context, in Invocation) (any, error) {
					return nil, fmt.Errorf("tool slow: %w", ErrTimeout)
				},
			})
			rep, err := h.run(context.Background(), Options{})
			if got := strings.Join(statuses(rep), " "); got != tt.want {
				t.Errorf("statuses = %s, want %s", got, tt.want)
			}
			if r := rep.Results[0]; r.Attempts != 2 || !errors.Is(r.Err, ErrTimeout) {
				t.Errorf("tool: %d attempts, error %v", r.Attempts, r.Err)
			}
			var se *StepError
			switch {
			case tt.onError == OnErrorContinue && err != nil:
				t.Errorf("err = %v", err)
			case tt.onError == OnErrorFail && (!errors.As(err, &se) || se.Status != Timeout):
				t.Errorf("err = %v, want a TIMEOUT *StepError", err)
			}
		})
	}
}

// TestRunFailureBranchContinues: a step whose output is a success || failure branch goes on into the
// failure branch when it fails, without onError continue (seed 002); onError fail still stops the
// plan, and so does a failure branch that cannot be written.
func TestRunFailureBranchContinues(t *testing.T) {
	tests := []struct {
		name     string
		onError  OnError
		output   string
		init     map[string]any
		statuses string
		state    map[string]any
		stopped  bool
	}{
		{name: "unset", output: "state.user.verified || state.user.failed",
			statuses: "verify=FAILED onFail=COMPLETED onOK=SKIPPED",
			state:    map[string]any{"user": map[string]any{"failed": map[string]any{"status": "FAILED", "message": "boom"}}}},
		{name: "continue", onError: OnErrorContinue, output: "state.user.verified || state.user.failed",
			statuses: "verify=FAILED onFail=COMPLETED onOK=SKIPPED",
			state:    map[string]any{"user": map[string]any{"failed": map[string]any{"status": "FAILED", "message": "boom"}}}},
		{name: "fail", onError: OnErrorFail, output: "state.user.verified || state.user.failed",
			statuses: "verify=FAILED onFail=SKIPPED onOK=SKIPPED", stopped: true,
			state: map[string]any{"user": map[string]any{"failed": map[string]any{"status": "FAILED", "message": "boom"}}}},
		{name: "no branch", output: "state.user.verified",
			statuses: "verify=FAILED onFail=SKIPPED onOK=SKIPPED", stopped: true, state: map[string]any{}},
		{name: "branch not writable", output: "state.user.verified || state.user.failed", init: map[string]any{"user": "a string"},
			statuses: "verify=FAILED onFail=SKIPPED onOK=SKIPPED", stopped: true, state: map[string]any{"user": "a string"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, []Node{
				{ID: "verify", OnError: tt.onError, Output: mustOut(t, tt.output)},
				{ID: "onFail", DependsOn: []string{"verify"}, When: mustCond(t, "state.user.failed.status == 'FAILED'")},
				{ID: "onOK", DependsOn: []string{"verify"}, When: mustCond(t, "state.user.verified != nil")},
			}, map[string]stepFunc{"verify": func(context.Context, Invocation) (any, error) { return nil, errors.New("boom") }})
			rep, err := h.run(context.Background(), Options{State: tt.init})
			var se *StepError
			if stopped := errors.As(err, &se); stopped != tt.stopped || err != nil && !tt.stopped {
				t.Fatalf("err = %v, want stopped %v", err, tt.stopped)
			}
			if got := strings.Join(statuses(rep), " "); got != tt.statuses {
				t.Errorf("statuses = %s, want %s", got, tt.statuses)
			}
			if !reflect.DeepEqual(rep.State, tt.state) {
				t.Errorf("state = %#v, want %#v", rep.State, tt.state)
			}
		})
	}
}
