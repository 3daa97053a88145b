package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/google/uuid"

	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/runstate"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/plan"
)

// A tool step whose tool needs the user's consent pauses its plan: the
// plan runs on without it (its dependents wait), then the run is saved with
// the plan's state and the results of the steps that completed, and the
// user gets a confirm. Accepting runs the plan again from that state: the
// completed steps give their saved results without running or showing
// anything again, the tool runs, and the plan goes on.

// planWait is a consent a plan's tool step waits for.
type planWait struct {
	mu       sync.Mutex
	step     string
	question string
}

// approval tells a consent tool step whether this request answers it.
func (run *Run) approval(step string) stepkind.Approval {
	rec := run.paused
	if rec == nil || rec.Kind != runstate.KindPlan || rec.Step != step || run.req.Action == nil {
		return stepkind.Unasked
	}
	if run.req.Action.Accepted {
		return stepkind.Approved
	}
	return stepkind.Declined
}

// cannotWait is the error of a call step's command that would pause for
// what: the user's answer resumes the paused command on its own, and the
// calling plan, which takes the command's output, would never get it; nil
// for every other run. Loading refuses what it can see (noPause, and
// compileCall for a command of the same agent); this holds for the rest,
// such as a call into another agent.
func (run *Run) cannotWait(what string) error {
	if !run.called {
		return nil
	}
	return apierr.New(apierr.CodeToolFailed, fmt.Sprintf("command %q (agent %q) waits for %s, which it cannot do when command %q runs it",
		run.cmd.Def.Name, run.agent.Name(), what, run.parent.cmd.Def.Name)).
		Suggest("have the request's own command ask for the consent or the IDE tool, or call a command that does not wait")
}

// waitForConsent records the step that waits (the first, when several
// do) and holds it: the plan runs what does not depend on it and ends.
func (run *Run) waitForConsent(step, question string) error {
	if err := run.cannotWait(fmt.Sprintf("the user's consent in step %q", step)); err != nil {
		return err
	}
	run.planWait.mu.Lock()
	defer run.planWait.mu.Unlock()
	if run.planWait.step == "" {
		run.planWait.step, run.planWait.question = step, question
	}
	return fmt.Errorf("%w: %w", plan.ErrHold, errPaused)
}

// pausedPlan saves a plan that waits for a consent and asks for it; it
// returns errPaused. It is called only for a plan that was held (and did
// not fail besides: then the failure is what the user sees).
func (run *Run) pausedPlan(ctx context.Context, em emit.Emitter, rep *plan.Report) error {
	run.planWait.mu.Lock()
	step, question := run.planWait.step, run.planWait.question
	run.planWait.mu.Unlock()
	if step == "" {
		return apierr.Internal(errors.New("a plan step was held with nothing to wait for"))
	}
	if !run.cfg.runs.Keeps() {
		return runstate.NoStore("a tool step needs the user's consent")
	}
	rec := &runstate.Record{ID: uuid.NewString(), Kind: runstate.KindPlan, Endpoint: run.endpoint, Agent: run.agent.Name(),
		Command: run.cmd.Def.Name, Step: step, State: rep.State, Done: map[string]any{}}
	if prev := run.paused; prev != nil && prev.Kind == runstate.KindPlan {
		for id, v := range prev.Done {
			rec.Done[id] = v
		}
	}
	for _, r := range rep.Results {
		if r.Status == plan.Completed {
			rec.Done[r.ID] = r.Value
		}
	}
	if err := run.savePause(ctx, rec); err != nil {
		return err
	}
	observe.From(ctx).Paused(observe.PauseConsent)
	return run.askConsent(em, rec.ID, "Allow", question)
}

// doneResult is the saved result of a step that completed before the plan
// paused, when this run resumes that plan.
func (run *Run) doneResult(step string) (any, bool) {
	rec := run.paused
	if rec == nil || rec.Kind != runstate.KindPlan {
		return nil, false
	}
	v, ok := rec.Done[step]
	return v, ok
}
