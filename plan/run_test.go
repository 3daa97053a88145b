package plan

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRunLinearOrderAndData(t *testing.T) {
	h := newHarness(t, []Node{
		{ID: "c", Refs: map[string]*Ref{"in": mustRef(t, "${dependencies.b.result}")}, Output: mustOut(t, "state.c")},
		{ID: "a", Output: mustOut(t, "state.a")},
		{ID: "b", DependsOn: []string{"a"}, Refs: map[string]*Ref{"in": mustRef(t, "$steps.a.result")}, Output: mustOut(t, "state.b")},
	}, map[string]stepFunc{
		"b": func(ctx context.Context, in Invocation) (any, error) {
			if got := in.Scope.Steps["a"]["status"]; got != "COMPLETED" {
				t.Errorf("b sees a as %v", got)
			}
			return map[string]any{"from": in.Inputs["in"], "attempt": in.Attempt}, nil
		},
		"c": func(ctx context.Context, in Invocation) (any, error) { return in.Inputs["in"], nil },
	})
	rep, err := h.run(context.Background(), Options{State: map[string]any{"init": true}})
	if err != nil {
		t.Fatal(err)
	}
	wantEvents := []string{"start a", "exec a", "finish a COMPLETED", "start b", "finish b COMPLETED", "start c", "finish c COMPLETED"}
	if !reflect.DeepEqual(h.events, wantEvents) {
		t.Errorf("events = %q\nwant %q", h.events, wantEvents)
	}
	b := map[string]any{"from": "a!", "attempt": 1}
	wantState := map[string]any{"init": true, "a": "a!", "b": b, "c": b}
	if !reflect.DeepEqual(rep.State, wantState) {
		t.Errorf("state = %#v\nwant %#v", rep.State, wantState)
	}
	if r := rep.Results[0]; r.Attempts != 1 || r.Started.IsZero() || r.Finished.Before(r.Started) {
		t.Errorf("result c = %+v", r)
	}
}

// TestRunParallel proves two independent steps run at once: each waits for the other to have started.
func TestRunParallel(t *testing.T) {
	aStarted, bStarted := make(chan struct{}), make(chan struct{})
	meet := func(mine, other chan struct{}) stepFunc {
		return func(ctx context.Context, in Invocation) (any, error) {
			close(mine)
			select {
			case <-other:
				return "met", nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	h := newHarness(t, []Node{{ID: "a"}, {ID: "b"}, {ID: "c", DependsOn: []string{"a", "b"}}},
		map[string]stepFunc{"a": meet(aStarted, bStarted), "b": meet(bStarted, aStarted)})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rep, err := h.run(ctx, Options{Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(statuses(rep), " "); got != "a=COMPLETED b=COMPLETED c=COMPLETED" {
		t.Errorf("statuses = %s", got)
	}
	if h.maxRun != 2 {
		t.Errorf("at most %d steps ran at once, want 2", h.maxRun)
	}
}

// TestRunParallelBound checks at every start that no more than Parallel steps are running.
func TestRunParallelBound(t *testing.T) {
	for _, parallel := range []int{1, 2, 3} {
		var nodes []Node
		for _, id := range []string{"a", "b", "c", "d", "e", "f", "g"} {
			nodes = append(nodes, Node{ID: id})
		}
		nodes = append(nodes, Node{ID: "z", DependsOn: []string{"a", "g"}})
		h := newHarness(t, nodes, nil)
		var mu sync.Mutex
		active, maxExec := 0, 0
		counting := func(ctx context.Context, in Invocation) (any, error) {
			mu.Lock()
			active++
			maxExec = max(maxExec, active)
			mu.Unlock()
			runtime.Gosched()
			mu.Lock()
			active--
			mu.Unlock()
			return nil, nil
		}
		for _, n := range nodes {
			h.funcs[n.ID] = counting
		}
		if _, err := h.run(context.Background(), Options{Parallel: parallel}); err != nil {
			t.Fatal(err)
		}
		if h.maxRun > parallel || maxExec > parallel {
			t.Errorf("Parallel %d: %d steps started at once, %d Execs at once", parallel, h.maxRun, maxExec)
		}
		if h.starts != 8 {
			t.Errorf("Parallel %d: %d starts", parallel, h.starts)
		}
	}
}

func TestRunEveryStatus(t *testing.T) {
	h := newHarness(t, []Node{
		{ID: "ok"},
		{ID: "bad", OnError: OnErrorContinue, Output: mustOut(t, "state.bad || state.badErr")},
		{ID: "slow", OnError: OnErrorContinue, Timeout: time.Millisecond, Output: mustOut(t, "state.slow || state.slowErr")},
		{ID: "no", When: mustCond(t, "state.go == true")},
		{ID: "after", When: mustCond(t, "dependencies.bad.status == 'FAILED' AND dependencies.slow.status == 'TIMEOUT' AND dependencies.no.status == 'SKIPPED' AND steps.bad.error.message == 'boom'"),
			DependsOn: []string{"ok", "bad", "slow", "no"}},
	}, map[string]stepFunc{
		"bad": func(ctx context.Context, in Invocation) (any, error) { return nil, errors.New("boom") },
		"slow": func(ctx context.Context, in Invocation) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
	})
	rep, err := h.run(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(statuses(rep), " "); got != "ok=COMPLETED bad=FAILED slow=TIMEOUT no=SKIPPED after=COMPLETED" {
		t.Errorf("statuses = %s", got)
	}
	if e := rep.Results[2].Err; !errors.Is(e, context.DeadlineExceeded) || e.Error() != "timed out after 1ms: context deadline exceeded" {
		t.Errorf("slow's error = %v", e)
	}
	if rep.Results[3].Err != nil || rep.Results[3].Attempts != 0 {
		t.Errorf("a false condition: %+v", rep.Results[3])
	}
	want := map[string]any{
		"badErr":  map[string]any{"status": "FAILED", "message": "boom"},
		"slowErr": map[string]any{"status": "TIMEOUT", "message": "timed out after 1ms: context deadline exceeded"},
	}
	if !reflect.DeepEqual(rep.State, want) {
		t.Errorf("state = %#v", rep.State)
	}
}

func TestRunConditionError(t *testing.T) {
	h := newHarness(t, []Node{{ID: "a", When: mustCond(t, "state.missing > 1")}, {ID: "b", DependsOn: []string{"a"}}}, nil)
	rep, err := h.run(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	if r.Status != Skipped || r.Err == nil || !strings.Contains(r.Err.Error(), `evaluating condition "state.missing > 1"`) {
		t.Errorf("a = %s %v", r.Status, r.Err)
	}
	if rep.Results[1].Status != Completed {
		t.Errorf("b after a skipped dependency = %s", rep.Results[1].Status)
	}
}

func TestRunRetry(t *testing.T) {
	const backoff = 2 * time.Millisecond
	var ends, starts []time.Time
	var attempts []int
	h := newHarness(t, []Node{
		{ID: "flaky", Retry: Retry{Limit: 3, Backoff: backoff}},
		{ID: "never", Retry: Retry{Limit: 2}, OnError: OnErrorContinue},
		{ID: "slow", Retry: Retry{Limit: 1}, Timeout: time.Millisecond, OnError: OnErrorContinue},
	}, map[string]stepFunc{
		"flaky": func(ctx context.Context, in Invocation) (any, error) {
			starts = append(starts, time.Now())
			defer func() { ends = append(ends, time.Now()) }()
			attempts = append(attempts, in.Attempt)
			in.Inputs["scribble"] = in.Attempt // each attempt gets fresh inputs
			if in.Attempt < 3 {
				return nil, errors.New("not yet")
			}
			return len(in.Inputs), nil
		},
		"never": func(ctx context.Context, in Invocation) (any, error) { return nil, errors.New("no") },
		"slow": func(ctx context.Context, in Invocation) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
	})
	rep, err := h.run(context.Background(), Options{Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Results[0]; r.Status != Completed || r.Attempts != 3 || r.Value != 1 || r.Err != nil {
		t.Errorf("flaky = %+v", r)
	}
	if !reflect.DeepEqual(attempts, []int{1, 2, 3}) {
		t.Errorf("attempts = %v", attempts)
	}
	for i := 1; i < len(starts); i++ {
		if want := backoff << (i - 1); starts[i].Sub(ends[i-1]) < want {
			t.Errorf("retry %d came %v after the failure, want at least %v", i, starts[i].Sub(ends[i-1]), want)
		}
	}
	if r := rep.Results[1]; r.Status != Failed || r.Attempts != 3 || r.Err.Error() != "no" {
		t.Errorf("never = %+v", r)
	}
	if r := rep.Results[2]; r.Status != Timeout || r.Attempts != 2 {
		t.Errorf("slow = %+v", r)
	}
}

func TestRunPanic(t *testing.T) {
	h := newHarness(t, []Node{{ID: "p", OnError: OnErrorContinue}}, map[string]stepFunc{
		"p": func(ctx context.Context, in Invocation) (any, error) { panic("oops") },
	})
	rep, err := h.run(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Results[0]; r.Status != Failed || r.Err.Error() != `step "p" panicked: oops` {
		t.Errorf("p = %s %v", r.Status, r.Err)
	}
}
