package plan

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"
)

// Invocation is what Exec receives for one attempt of a step.
type Invocation struct {
	// Inputs holds the step's resolved Refs by name (a fresh deep copy per attempt). A reference that is
	// not present resolves to nil; a gate is always present when the step runs.
	Inputs map[string]any
	// Scope is a consistent view for templates: State is the live plan state (a kind may Set on it, as a
	// `set` step does), Steps a snapshot of the step records taken when the step started, Context and
	// Input the caller's maps (read-only).
	Scope *Scope
	// Attempt is the attempt number, from 1.
	Attempt int
}

// Exec executes one attempt of step (an index into the plan) and returns its result. It must return
// when ctx is done; ctx carries the step's timeout and is cancelled when the plan stops. A panic in Exec
// is recovered and fails the attempt.
type Exec func(ctx context.Context, step int, in Invocation) (any, error)

// Result is a step's outcome.
type Result struct {
	ID       string
	Status   Status    // terminal
	Value    any       // the result of a COMPLETED step
	Err      error     // why a step FAILED, timed out or was SKIPPED (nil for a false condition)
	Attempts int       // attempts made; 0 for a step that never ran
	Started  time.Time // when the first attempt started; zero for a step that never ran
	Finished time.Time
}

// Options configures one Run.
type Options struct {
	Parallel int            // steps running at once; <= 0 means 4
	Timeout  time.Duration  // the whole plan; 0: none
	State    map[string]any // initial state (deep-copied)
	Context  map[string]any // the request's context variables (the "context" root); read-only
	Input    map[string]any // the request (the "input" root); read-only
	Handoff  map[string]any // the hand-off message received (the "handoff" root); read-only
	// OnStart is called when a step starts running, before its first Exec.
	OnStart func(step int)
	// OnFinish is called once per step when it reaches its terminal status, after its Output was written
	// and its record updated; also for SKIPPED steps that never ran. The steps a step depends on have
	// had their OnFinish before its OnStart.
	OnFinish func(step int, r Result)
}

// Report is the outcome of a Run.
type Report struct {
	Results []Result       // one per step, in plan order, every one terminal
	State   map[string]any // the final state (a deep copy)
}

// ErrHold, wrapped by an Exec's error, holds its step instead of failing it: the step ends SKIPPED at
// once (no retries, onError does not apply) with that error, the steps that depend on it, directly or
// not, end SKIPPED without running, and the rest of the plan runs to its end. Run's error then wraps
// the first held step's error. A caller uses it for a step that waits for something outside the plan
// (a person's consent) and runs the plan again once it has it.
var ErrHold = errors.New("step held")

// ErrPlanTimeout is wrapped by Run's error, and recorded by the interrupted steps, when Options.Timeout
// ends the plan.
var ErrPlanTimeout = errors.New("plan timed out")

// StepError is Run's error when a FAILED or TIMEOUT step with onError fail stopped the plan, or a
// step whose gate never filled (SKIPPED, Err wrapping a *NotReadyError).
type StepError struct {
	ID     string
	Status Status // FAILED, TIMEOUT, or SKIPPED for a gate that never filled
	Err    error
}

// Error renders `step "fetch" FAILED: <cause>`.
func (e *StepError) Error() string { return fmt.Sprintf("step %q %s: %v", e.ID, e.Status, e.Err) }

// Unwrap returns the step's error.
func (e *StepError) Unwrap() error { return e.Err }

// stopCause is the cancellation cause given to running steps when a failed step stops the plan.
type stopCause struct{ id string }

func (s stopCause) Error() string { return fmt.Sprintf("cancelled because step %q failed", s.id) }
func (s stopCause) Unwrap() error { return context.Canceled }

// ErrTimeout, wrapped by an Exec's error, ends the attempt TIMEOUT as the step's own deadline does: a
// kind reports with it that a deadline of its own passed (a tool's timeout), so that the step's status,
// and what the caller shows for it, say so.
var ErrTimeout = errors.New("timed out")

// errStepTimeout is the cause of an attempt's own deadline.
var errStepTimeout = errors.New("step timeout")

// Run executes the plan: a DAG scheduler that calls exec for each step that runs.
//
// A step is ready when every step it depends on (explicitly or through its Refs and When) is terminal
// and every gate Ref (a && reference) is present. Dependencies that were SKIPPED, or FAILED or timed out
// with onError continue (or, onError unset, with a success || failure Output whose failure path was
// written), do not stop their dependents; their `when` can test dependencies.x.status.
// Ready steps start in definition order, at most Parallel at once. Starting a step evaluates its When
// (false or an evaluation error: SKIPPED, the error recorded) and resolves its Refs into Inputs.
//
// Each attempt runs with the step's Timeout and a fresh copy of the Inputs; a failed or timed-out
// attempt is retried per Retry unless the plan is stopping (a plan that stops during the wait for a
// retry ends the step as described below). The final status is COMPLETED, FAILED, or TIMEOUT (the last attempt ended by the
// step's own deadline, or with an error wrapping ErrTimeout). Then the Output is written (a write that fails turns COMPLETED into FAILED), the
// step's record in steps.<id> is updated and OnFinish is called.
//
// A FAILED or TIMEOUT step with onError fail (or unset, without a failure branch taken) stops the plan: running steps are cancelled (they end
// FAILED, their error wrapping context.Canceled, unless they complete anyway), steps not started end
// SKIPPED (so does a step already announced by OnStart whose first attempt had not begun), and Run
// returns a *StepError. When nothing runs and no pending step can become ready (a gate that is never
// satisfied), the first such step ends SKIPPED with a *NotReadyError naming the missing paths, and its
// onError decides as for a failure: fail stops the plan with a *StepError, continue lets its dependents
// run (see skipStuck).
// A step whose Exec returns an error wrapping ErrHold is held (see ErrHold); a plan with a held step
// and no failure returns an error wrapping the held step's error.
// Options.Timeout ends everything: running steps end TIMEOUT, pending ones SKIPPED, and the error wraps
// ErrPlanTimeout. The caller's ctx ending does the same and Run returns ctx.Err(); running steps end
// TIMEOUT when ctx's deadline passed and FAILED when it was cancelled.
//
// Run returns only after every Exec it started has returned, and always returns a Report (with a nil
// error when the plan ran to its end). The scheduler runs on the calling goroutine, which also calls
// OnStart and OnFinish, one at a time; Exec runs on other goroutines, concurrently with those callbacks,
// so a caller sharing data between them synchronises it.
func (p *Plan) Run(ctx context.Context, exec Exec, o Options) (*Report, error) {
	if exec == nil {
		return nil, errors.New("running plan: nil Exec")
	}
	planCtx, cancel := ctx, context.CancelFunc(func() {})
	if o.Timeout > 0 {
		planCtx, cancel = context.WithTimeoutCause(ctx, o.Timeout, ErrPlanTimeout)
	}
	defer cancel()
	stepsCtx, stop := context.WithCancelCause(planCtx)
	defer stop(nil)
	r := newRunner(p, exec, o, planCtx, stepsCtx, stop)
	r.loop()
	return &Report{Results: r.results, State: r.state.Snapshot()}, r.err(ctx)
}

// runner is the state of one Run; only the scheduling goroutine touches it (workers report on done).
type runner struct {
	p        *Plan
	exec     Exec
	o        Options
	parallel int
	planCtx  context.Context
	planDone <-chan struct{} // nil once the plan's end was handled
	stepsCtx context.Context
	stop     context.CancelCauseFunc
	state    *State
	steps    map[string]map[string]any
	results  []Result
	done     chan outcome
	running  int
	failed   *StepError
	aborted  bool
	held     error // the first held step's error, wrapped
}

// outcome is a worker's report.
type outcome struct {
	step int
	res  Result
}

// newRunner prepares a run: every step PENDING.
func newRunner(p *Plan, exec Exec, o Options, planCtx, stepsCtx context.Context, stop context.CancelCauseFunc) *runner {
	r := &runner{
		p: p, exec: exec, o: o, parallel: o.Parallel,
		planCtx: planCtx, planDone: planCtx.Done(), stepsCtx: stepsCtx, stop: stop,
		state: NewState(o.State), steps: make(map[string]map[string]any, len(p.nodes)),
		results: make([]Result, len(p.nodes)), done: make(chan outcome, len(p.nodes)),
	}
	if r.parallel <= 0 {
		r.parallel = 4
	}
	for i, n := range p.nodes {
		r.results[i] = Result{ID: n.ID, Status: Pending}
		r.steps[n.ID] = record(r.results[i])
	}
	return r
}

// record builds a step's record for the steps root.
func record(res Result) map[string]any {
	var e any
	if res.Err != nil {
		e = map[string]any{"message": res.Err.Error()}
	}
	rec := map[string]any{
		"id": res.ID, "status": string(res.Status), "result": res.Value, "error": e, "attempts": res.Attempts,
	}
	if !res.Finished.IsZero() && res.Status.Terminal() {
		rec["finished"] = res.Finished.UTC().Format(time.RFC3339Nano)
	}
	return rec
}

// halted reports whether the plan is stopping (a failure or its context's end).
func (r *runner) halted() bool { return r.failed != nil || r.aborted }

// loop schedules until every step is terminal and no worker is left.
func (r *runner) loop() {
	for {
		if !r.halted() && r.planCtx.Err() != nil {
			r.abort()
		}
		if !r.halted() {
			r.startReady()
		}
		if r.running == 0 {
			if r.halted() || !r.skipStuck() {
				return
			}
			continue
		}
		select {
		case oc := <-r.done:
			r.running--
			r.finish(oc.step, oc.res)
		case <-r.planDone:
			r.abort()
		}
	}
}

// err returns Run's error.
func (r *runner) err(ctx context.Context) error {
	switch {
	case r.failed != nil:
		return r.failed
	case !r.aborted:
		if r.held != nil {
			return r.held
		}
		return nil
	case errors.Is(context.Cause(r.planCtx), ErrPlanTimeout) && ctx.Err() == nil:
		return fmt.Errorf("running plan: %w after %v", ErrPlanTimeout, r.o.Timeout)
	}
	return ctx.Err()
}

// scope returns the live scope the scheduler evaluates conditions and references in.
func (r *runner) scope() *Scope {
	return &Scope{State: r.state, Steps: r.steps, Context: r.o.Context, Input: r.o.Input, Handoff: r.o.Handoff}
}

// snapshotScope returns the scope handed to Exec: the live state, a copy of the step records.
func (r *runner) snapshotScope() *Scope {
	return &Scope{State: r.state, Steps: maps.Clone(r.steps), Context: r.o.Context, Input: r.o.Input, Handoff: r.o.Handoff}
}
