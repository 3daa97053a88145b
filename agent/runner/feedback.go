package runner

import (
	"context"
	"fmt"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/apierr"
)

// handleFeedback answers an action feedback request: it finds the action
// the state routes to and runs the handler for the user's gesture with the
// state its run saved; without a handler the answer is polite and final.
func (run *Run) handleFeedback(ctx context.Context, em emit.Emitter) error {
	fb := run.req.Action
	h := run.handler()
	if h == nil {
		return apierr.Canceled(em.Text(politeAnswer(fb)))
	}
	if run.debugging() {
		run.logger().Debug("feedback", "action", run.feedback.Step, "gesture", fb.Gesture())
	}
	if h.Command != "" {
		cmd, ok := run.agent.Commands[h.Command]
		if !ok {
			return apierr.New(apierr.CodeCommandNotFound, fmt.Sprintf("the action's handler names command %q, which agent %q no longer has", h.Command, run.agent.Name())).
				From(apierr.SourceServer) // the agent changed under its action
		}
		return run.sub(run.agent, cmd).execute(ctx, em)
	}
	// The handler's steps continue the run that sent the action: keep its id
	// so that actions they send see the same saved state.
	if run.feedback.Run != "" {
		run.id = run.feedback.Run
	}
	rep, err := run.runPlan(ctx, h.Plan, em, run.handlerState)
	if err != nil {
		return err
	}
	return run.saveState(ctx, rep.State)
}

// handler is the handler of the action this feedback answers, nil when
// the action or its gesture has none.
func (run *Run) handler() *program.Handler {
	ca := run.cmd.ActionsByKey[run.feedback.Step]
	if ca == nil {
		return nil
	}
	return ca.Handlers[run.req.Action.Gesture()]
}

// loadHandlerState reads, before the stream, the state that the steps of
// the action's handler start with: a store that fails is a 503
// STORE_UNAVAILABLE rather than a handler that runs without its state.
func (run *Run) loadHandlerState() error {
	if run.feedback == nil || run.paused != nil {
		return nil
	}
	h := run.handler()
	if h == nil || h.Command != "" {
		return nil
	}
	var err error
	run.handlerState, err = run.loadState(bgctx(), run.feedback.Run)
	return err
}

// politeAnswer is the answer to feedback nothing handles.
func politeAnswer(fb *actions.Feedback) string {
	switch {
	case fb.Action == actions.KindConfirm && !fb.Accepted:
		return "OK, nothing was done."
	case fb.Action == actions.KindConfirm:
		return "Noted. This action has no follow-up configured."
	default:
		return fmt.Sprintf("Nothing to show for %s on node %q.", apierr.Clip(fb.NodeAction), apierr.Clip(fb.NodeID))
	}
}
