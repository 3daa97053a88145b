package plan

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// startReady starts ready steps in definition order while slots are free. A step skipped by its
// condition can make others ready, so the scan repeats until nothing changes.
func (r *runner) startReady() {
	for changed := true; changed; {
		changed = false
		for i := range r.p.nodes {
			if r.results[i].Status != Pending || !r.depsDone(i) || len(r.gatesMissing(i)) > 0 {
				continue
			}
			if r.running >= r.parallel {
				return
			}
			if !r.begin(i) {
				changed = true
			}
		}
	}
}

// depsDone reports whether every dependency of step i is terminal.
func (r *runner) depsDone(i int) bool {
	for _, d := range r.p.deps[i] {
		if !r.results[d].Status.Terminal() {
			return false
		}
	}
	return true
}

// gatesMissing describes the unsatisfied gate Refs of step i, as "with.x needs state.y".
func (r *runner) gatesMissing(i int) []string {
	var out []string
	if len(r.p.gates[i]) == 0 {
		return nil
	}
	sc := r.scope()
	for _, name := range r.p.gates[i] {
		ref := r.p.nodes[i].Refs[name]
		if _, ok := ref.resolveShared(sc); !ok {
			out = append(out, fmt.Sprintf("with.%s needs %s", name, strings.Join(ref.missing(sc), ", ")))
		}
	}
	return out
}

// begin starts step i: it evaluates When, and either skips the step (returning false) or resolves its
// Refs, marks it RUNNING, calls OnStart and hands it to a worker (returning true).
func (r *runner) begin(i int) bool {
	n := r.p.nodes[i]
	sc := r.scope()
	if n.When != nil {
		ok, err := n.When.Eval(sc)
		if !ok {
			r.finish(i, Result{ID: n.ID, Status: Skipped, Err: err, Finished: time.Now()})
			return false
		}
	}
	inputs := make(map[string]any, len(n.Refs))
	for name, ref := range n.Refs {
		inputs[name], _ = ref.Resolve(sc)
	}
	r.results[i].Status = Running
	r.steps[n.ID] = record(r.results[i])
	if r.o.OnStart != nil {
		r.o.OnStart(i)
	}
	r.running++
	go r.work(i, Invocation{Inputs: inputs, Scope: r.snapshotScope()})
	return true
}

// finish records step i's terminal result: Output, record, OnFinish, and a stop on a failure that
// fails the plan.
func (r *runner) finish(i int, res Result) {
	n := r.p.nodes[i]
	branched := false // the failure was written to the output's failure branch
	if n.Output != nil {
		if err := n.Output.Write(r.state, res.Value, res.Err, res.Status); err != nil {
			err = fmt.Errorf("writing output %q: %w", n.Output, err)
			if res.Status == Completed {
				res.Status, res.Value, res.Err = Failed, nil, err
			} else {
				res.Err = errors.Join(res.Err, err)
			}
		} else {
			branched = res.Status.failed() && n.Output.Branch()
		}
	}
	r.results[i] = res
	r.steps[n.ID] = record(res)
	if r.o.OnFinish != nil {
		r.o.OnFinish(i, res)
	}
	if res.Status == Skipped && errors.Is(res.Err, ErrHold) {
		r.hold(i, res)
	}
	if res.Status.failed() && !n.continues(branched) && !r.halted() {
		r.failed = &StepError{ID: n.ID, Status: res.Status, Err: res.Err}
		r.stop(stopCause{id: n.ID})
		r.skipPending(fmt.Errorf("not started: step %q failed", n.ID))
	}
}

// hold handles held step i: the first step held by its Exec becomes Run's error, and the pending
// steps that depend on i end SKIPPED, their errors wrapping ErrHold so that their own dependents follow.
func (r *runner) hold(i int, res Result) {
	id := r.p.nodes[i].ID
	if r.held == nil && res.Attempts > 0 {
		r.held = fmt.Errorf("step %q held: %w", id, res.Err)
	}
	for j := range r.p.nodes {
		if r.results[j].Status == Pending && slices.Contains(r.p.deps[j], i) {
			err := fmt.Errorf("not started: step %q is held: %w", id, ErrHold)
			r.finish(j, Result{ID: r.p.nodes[j].ID, Status: Skipped, Err: err, Finished: time.Now()})
		}
	}
}

// abort handles the end of the plan's context: pending steps are skipped; running ones see their
// context end.
func (r *runner) abort() {
	r.aborted, r.planDone = true, nil
	cause := context.Cause(r.planCtx)
	if !errors.Is(cause, ErrPlanTimeout) {
		cause = r.planCtx.Err()
	}
	r.skipPending(fmt.Errorf("not started: %w", cause))
}

// skipPending ends every pending step SKIPPED with err.
func (r *runner) skipPending(err error) {
	for i := range r.p.nodes {
		if r.results[i].Status == Pending {
			r.finish(i, Result{ID: r.p.nodes[i].ID, Status: Skipped, Err: err, Finished: time.Now()})
		}
	}
}

// skipStuck is called when nothing runs and nothing is ready. It ends the first step (in definition
// order) whose gate is not satisfied SKIPPED with a *NotReadyError, reporting true: with onError
// continue its dependents may now run and write what other gates wait for; with onError fail the plan
// stops as for a failed step. While a step is held (see ErrHold) the stuck step is held too instead:
// what it waits for may be written once the held step has run. With no stuck step it skips whatever is
// still pending (nothing is, in an acyclic plan) and reports false.
func (r *runner) skipStuck() bool {
	for i := range r.p.nodes {
		if r.results[i].Status != Pending || !r.depsDone(i) {
			continue
		}
		missing := r.gatesMissing(i)
		if len(missing) == 0 {
			continue
		}
		n := r.p.nodes[i]
		var err error = &NotReadyError{Missing: missing}
		if r.held != nil {
			err = fmt.Errorf("%w, while a step is held: %w", err, ErrHold)
		}
		r.finish(i, Result{ID: n.ID, Status: Skipped, Err: err, Finished: time.Now()})
		if r.held == nil && n.OnError != OnErrorContinue && !r.halted() {
			r.failed = &StepError{ID: n.ID, Status: Skipped, Err: err}
			r.stop(stopCause{id: n.ID})
			r.skipPending(fmt.Errorf("not started: step %q never ran", n.ID))
		}
		return true
	}
	r.skipPending(errors.New("never ready"))
	return false
}

// NotReadyError is the error of a step whose gate (a && reference) never filled: nothing ran any more and
// no step had written what it waits for. Such a step ends SKIPPED; with onError fail (the default) Run's
// *StepError, whose Status is then SKIPPED, wraps it.
type NotReadyError struct {
	// Missing says what each unsatisfied gate input waits for: "with.p needs state.a, state.b".
	Missing []string
}

// Error renders "never ready: a reference never appeared: with.p needs state.never".
func (e *NotReadyError) Error() string {
	return "never ready: a reference never appeared: " + strings.Join(e.Missing, "; ")
}
