package plan

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// work runs step i's attempts on its own goroutine and reports the outcome. done is buffered for every
// step, so the send never blocks.
func (r *runner) work(i int, in Invocation) {
	r.done <- outcome{step: i, res: r.attempts(i, in)}
}

// attempts runs the first attempt and the retries, and returns the step's result. A step whose plan
// stopped before its first attempt could begin ends SKIPPED.
func (r *runner) attempts(i int, in Invocation) (res Result) {
	n := r.p.nodes[i]
	res = Result{ID: n.ID}
	if r.stepsCtx.Err() != nil {
		_, err := r.interrupted(nil)
		res.Status, res.Err, res.Finished = Skipped, fmt.Errorf("not started: %w", err), time.Now()
		return res
	}
	res.Started = time.Now()
	defer func() { res.Finished = time.Now() }()
	inputs := in.Inputs
	for attempt := 1; ; attempt++ {
		in.Attempt, in.Inputs = attempt, copyMap(inputs)
		v, own, err := r.attempt(i, in)
		res.Attempts = attempt
		switch {
		case err == nil:
			res.Status, res.Value, res.Err = Completed, v, nil
			return res
		case errors.Is(err, ErrHold):
			res.Status, res.Err = Skipped, err
			return res
		case r.stepsCtx.Err() != nil:
			res.Status, res.Err = r.interrupted(nil)
			return res
		case own:
			res.Status, res.Err = Timeout, err
		default:
			res.Status, res.Err = Failed, err
		}
		if attempt > n.Retry.Limit {
			return res
		}
		if !r.wait(n.Retry.delay(attempt)) {
			res.Status, res.Err = r.interrupted(err)
			return res
		}
	}
}

// attempt runs one attempt with the step's timeout. own reports that it failed after its own deadline,
// or with an error wrapping ErrTimeout.
func (r *runner) attempt(i int, in Invocation) (v any, own bool, err error) {
	n := r.p.nodes[i]
	ctx := r.stepsCtx
	if n.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, n.Timeout, errStepTimeout)
		defer cancel()
	}
	v, err = r.call(ctx, i, in)
	if err != nil && errors.Is(context.Cause(ctx), errStepTimeout) {
		return nil, true, fmt.Errorf("timed out after %v: %w", n.Timeout, err)
	}
	if errors.Is(err, ErrTimeout) {
		return nil, true, err
	}
	return v, false, err
}

// call runs Exec, turning a panic into an error.
func (r *runner) call(ctx context.Context, i int, in Invocation) (v any, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, fmt.Errorf("step %q panicked: %v", r.p.nodes[i].ID, p)
		}
	}()
	return r.exec(ctx, i, in)
}

// wait sleeps d before a retry; false when the plan stops meanwhile.
func (r *runner) wait(d time.Duration) bool {
	if d <= 0 {
		return r.stepsCtx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.stepsCtx.Done():
		return false
	}
}

// interrupted returns the status and error of a step whose attempt (or wait for a retry, after the
// failure last) ended because the plan stopped: a failure elsewhere (FAILED, wrapping context.Canceled),
// the plan's timeout (TIMEOUT, wrapping ErrPlanTimeout), or the caller's context (TIMEOUT past its
// deadline, FAILED when cancelled).
func (r *runner) interrupted(last error) (Status, error) {
	cause := context.Cause(r.stepsCtx)
	var sc stopCause
	var st Status
	var err error
	switch {
	case errors.As(cause, &sc):
		st, err = Failed, cause
	case errors.Is(cause, ErrPlanTimeout):
		st, err = Timeout, fmt.Errorf("interrupted: %w", ErrPlanTimeout)
	case errors.Is(r.stepsCtx.Err(), context.DeadlineExceeded):
		st, err = Timeout, fmt.Errorf("interrupted: %w", r.stepsCtx.Err())
	default:
		st, err = Failed, fmt.Errorf("interrupted: %w", r.stepsCtx.Err())
	}
	if last != nil {
		err = fmt.Errorf("%w (waiting to retry after: %v)", err, last)
	}
	return st, err
}
