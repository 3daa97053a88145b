package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/runstate"
	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/plan"
)

// stepRun is one execution of one step.
type stepRun struct {
	run  *Run
	step *program.Step
	em   emit.Emitter
	inv  plan.Invocation
	env  *tmpl.Env
}

// runPlan executes a plan, its steps' output in step order on em, starting
// from state. It returns the engine's report (never nil).
func (run *Run) runPlan(ctx context.Context, cp *program.Plan, em emit.Emitter, state map[string]any) (*plan.Report, error) {
	seq := emit.NewSequencer(em, len(cp.Steps))
	opts := plan.Options{
		Parallel: run.cfg.Parallel, Timeout: cp.Timeout, State: state,
		Context: run.planContext(), Input: run.input, Handoff: run.req.Handoff,
		OnFinish: func(i int, r plan.Result) {
			seq.Finish(i)
			if run.debugging() {
				run.logger().Debug("step finished", "step", r.ID, "status", r.Status, "attempts", r.Attempts, "err", r.Err)
			}
		},
	}
	exec := func(ctx context.Context, i int, inv plan.Invocation) (any, error) {
		cs := cp.Steps[i]
		if cs.Kind == nil {
			return nil, errors.New("the step did not compile")
		}
		if v, ok := run.doneResult(cs.Def.ID); ok {
			return v, nil // completed before the plan paused: shown then
		}
		sr := &stepRun{run: run, step: cs, em: seq.Emitter(i), inv: inv}
		return sr.exec(ctx)
	}
	rep, err := cp.DAG.Run(ctx, exec, opts)
	if rep == nil {
		rep = &plan.Report{}
	}
	return rep, planError(ctx, err)
}

// planError maps the engine's failures to what the user sees. Only the
// client going away (ctx ending) is a quiet end: a step's own deadline
// cancels what it was doing, which is a failure of the step.
func planError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return apierr.Canceled(err)
	}
	var se *plan.StepError
	switch {
	case errors.As(err, &se):
		return stepError(se)
	case errors.Is(err, plan.ErrHold):
		return errPaused
	case errors.Is(err, plan.ErrPlanTimeout):
		return apierr.New(apierr.CodePlanTimeout, "the command's plan did not finish in time").Wrap(err).
			Suggest("try again; the agent's author may raise the command's timeout")
	}
	return apierr.New(apierr.CodeStepFailed, "the command's plan failed: "+err.Error()).Wrap(err)
}

// stepError is the error of the step that stopped a plan, for every step
// kind: its code follows the step's status. TIMEOUT is STEP_TIMEOUT
// whatever the kind reported when its deadline cancelled it (with the
// kind's message when it reported a STEP_TIMEOUT itself); SKIPPED (a
// gate that never filled) is STEP_NOT_READY naming the missing
// references; FAILED is the kind's own error (TOOL_FAILED, UPSTREAM_ERROR,
// ...) with the step named, or STEP_FAILED.
func stepError(se *plan.StepError) *apierr.Error {
	var e *apierr.Error
	switch se.Status {
	case plan.Timeout:
		if errors.As(se.Err, &e) && e.Code == apierr.CodeStepTimeout {
			// A kind's own deadline, told in its words (an ask step's
			// timeout names the agent that did not answer).
			c := *e
			c.Message = fmt.Sprintf("step %q: %s", se.ID, e.Message)
			return &c
		}
		return apierr.New(apierr.CodeStepTimeout, fmt.Sprintf("step %q did not finish within its timeout", se.ID)).Wrap(se)
	case plan.Skipped:
		var nr *plan.NotReadyError
		if errors.As(se.Err, &nr) {
			return apierr.New(apierr.CodeStepNotReady, fmt.Sprintf("step %q never ran: its inputs wait for references no step wrote: %s", se.ID, strings.Join(nr.Missing, "; "))).
				Wrap(se).Suggest(fmt.Sprintf("the agent's author should make a step write what step %q waits for before it, or give it onError: continue", se.ID))
		}
	}
	if errors.As(se.Err, &e) && e.Code != apierr.CodeCanceled {
		c := *e
		c.Message = fmt.Sprintf("step %q: %s", se.ID, e.Message)
		return &c
	}
	return apierr.New(apierr.CodeStepFailed, fmt.Sprintf("step %q failed: %v", se.ID, se.Err)).Wrap(se)
}

// exec runs one attempt of the step, its inputs rendered first.
func (sr *stepRun) exec(ctx context.Context) (out any, err error) {
	ctx, observed := observe.From(ctx).Step(ctx, observe.Step{ID: sr.step.Def.ID, Kind: sr.step.KindName()})
	defer func() { observed(stepOutcome(ctx, err)) }()
	if err := sr.prepare(ctx); err != nil {
		return nil, err
	}
	return sr.step.Kind.Run(ctx, sr)
}

// stepOutcome is an attempt's outcome as observers see it: the attempt's
// status (a deadline that passed is TIMEOUT) and error code.
func stepOutcome(ctx context.Context, err error) observe.StepResult {
	if err == nil {
		return observe.StepResult{Status: string(plan.Completed)}
	}
	res := observe.StepResult{Status: string(plan.Failed), Code: apierr.CodeStepFailed}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		res.Status, res.Code = string(plan.Timeout), apierr.CodeStepTimeout
	}
	var e *apierr.Error
	if errors.As(err, &e) {
		res.Code = e.Code
	}
	return res
}

// prepare builds the step's template data and renders its inputs.
func (sr *stepRun) prepare(ctx context.Context) error {
	run := sr.run
	data := maps.Clone(run.templateMap())
	stepsView := map[string]any{}
	for id, v := range sr.inv.Scope.Steps {
		stepsView[id] = v
	}
	data["state"] = sr.inv.Scope.State.Snapshot()
	data["steps"] = stepsView
	data["dependencies"] = stepsView
	data["context"] = run.planContext()
	data["input"] = run.input
	sr.env = &tmpl.Env{Ctx: ctx, Data: data, Scope: sr.inv.Scope}
	with := make(map[string]any, len(sr.inv.Inputs)+len(sr.step.With))
	for name, v := range sr.inv.Inputs {
		with[name] = v
	}
	for name, vt := range sr.step.With {
		v, err := vt.Render(sr.env)
		if err != nil {
			return tmpl.RenderError(err)
		}
		with[name] = v
	}
	data["with"] = with
	return nil
}

// saveState keeps the plan's state for the handlers of the actions it
// sent, under the run's id, for as long as those actions stay clickable.
// A store that fails is STORE_UNAVAILABLE: the actions sent would find no
// state. A state that cannot be kept is logged and dropped.
func (run *Run) saveState(ctx context.Context, state map[string]any) error {
	if !run.actionsSent.Load() || len(state) == 0 {
		return nil
	}
	err := run.cfg.runs.SaveState(ctx, run.runID(), state)
	var big *runstate.StateTooLargeError
	if errors.As(err, &big) {
		run.logger().Warn("plan state too large to save for the actions' handlers", "bytes", big.Size, "max", runstate.MaxState)
		return nil
	}
	return err
}

// loadState restores the state saved by the run that sent an action; an
// action whose run saved nothing (or whose state expired) starts empty. A
// store that fails is STORE_UNAVAILABLE.
func (run *Run) loadState(ctx context.Context, runID string) (map[string]any, error) {
	return run.cfg.runs.PlanState(ctx, runID)
}
