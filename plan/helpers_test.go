package plan

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// stepFunc is one step's behaviour in a test.
type stepFunc func(ctx context.Context, in Invocation) (any, error)

// harness runs a plan with per-step behaviours and records what happens.
type harness struct {
	t        testing.TB
	plan     *Plan
	funcs    map[string]stepFunc
	inflight atomic.Int64 // Execs that have not returned

	mu       sync.Mutex
	events   []string
	finishes map[string]int
	starts   int
	ends     int
	maxRun   int // the most steps started and not finished, seen at OnStart
}

// newHarness builds the plan from nodes (failing the test on plan errors).
func newHarness(t testing.TB, nodes []Node, funcs map[string]stepFunc) *harness {
	t.Helper()
	p, errs := NewPlan(nodes)
	if errs != nil {
		t.Fatalf("NewPlan: %v", errs)
	}
	if funcs == nil {
		funcs = map[string]stepFunc{}
	}
	return &harness{t: t, plan: p, funcs: funcs, finishes: map[string]int{}}
}

// event records a line.
func (h *harness) event(format string, args ...any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, fmt.Sprintf(format, args...))
}

// exec is the Exec given to Run.
func (h *harness) exec(ctx context.Context, step int, in Invocation) (any, error) {
	h.inflight.Add(1)
	defer h.inflight.Add(-1)
	id := h.plan.Node(step).ID
	f := h.funcs[id]
	if f == nil {
		h.event("exec %s", id)
		return id + "!", nil
	}
	return f(ctx, in)
}

// run runs the plan with o plus the harness's callbacks and checks the invariants every run keeps.
func (h *harness) run(ctx context.Context, o Options) (*Report, error) {
	h.t.Helper()
	o.OnStart = func(step int) {
		h.mu.Lock()
		h.starts++
		h.maxRun = max(h.maxRun, h.starts-h.ends)
		h.mu.Unlock()
		h.event("start %s", h.plan.Node(step).ID)
	}
	o.OnFinish = func(step int, r Result) {
		h.mu.Lock()
		h.finishes[r.ID]++
		if r.Started != (Result{}).Started {
			h.ends++
		}
		h.mu.Unlock()
		h.event("finish %s %s", r.ID, r.Status)
	}
	rep, err := h.plan.Run(ctx, h.exec, o)
	if n := h.inflight.Load(); n != 0 {
		h.t.Errorf("Run returned with %d Exec calls still running", n)
	}
	for i := 0; i < h.plan.Len(); i++ {
		id := h.plan.Node(i).ID
		if h.finishes[id] != 1 {
			h.t.Errorf("OnFinish(%s) called %d times, want 1", id, h.finishes[id])
		}
		if !rep.Results[i].Status.Terminal() || rep.Results[i].ID != id {
			h.t.Errorf("result %d = %s %s, want %s terminal", i, rep.Results[i].ID, rep.Results[i].Status, id)
		}
	}
	return rep, err
}

// statuses returns "id=STATUS" for each result.
func statuses(rep *Report) []string {
	var out []string
	for _, r := range rep.Results {
		out = append(out, r.ID+"="+string(r.Status))
	}
	return out
}
