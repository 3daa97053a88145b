package runner

import (
	"context"
	"fmt"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent"
)

// handleFeedback answers an action feedback request: it finds the action
// the state routes to and runs the handler for the user's gesture with the
// state its run saved; without a handler the answer is polite and final.
func (run *Run) handleFeedback(ctx context.Context, em Emitter) error {
	fb := run.req.Action
	ca := run.cmd.actionsByKey[run.feedback.Step]
	if ca == nil {
		return agent.Canceled(em.Text(politeAnswer(fb)))
	}
	h := ca.handlers[gesture(fb)]
	if h == nil {
		return agent.Canceled(em.Text(politeAnswer(fb)))
	}
	if run.debugging() {
		run.logger().Debug("feedback", "action", ca.key, "gesture", gesture(fb))
	}
	if h.command != "" {
		cmd, ok := run.agent.commands[h.command]
		if !ok {
			return agent.New(agent.CodeCommandNotFound, fmt.Sprintf("the action's handler names command %q, which agent %q no longer has", h.command, run.agent.Name())).
				From(agent.SourceServer) // the agent changed under its action
		}
		return run.sub(run.agent, cmd).execute(ctx, em)
	}
	// The handler's steps continue the run that sent the action: keep its id
	// so that actions they send see the same saved state.
	if run.feedback.Run != "" {
		run.id = run.feedback.Run
	}
	rep, err := run.runPlan(ctx, h.plan, em, run.loadState(ctx, run.feedback.Run))
	if err != nil {
		return err
	}
	run.saveState(ctx, rep.State)
	return nil
}

// gesture names the handler a feedback asks for.
func gesture(fb *actions.Feedback) string {
	switch {
	case fb.Action == actions.KindConfirm && fb.Accepted:
		return "onAccept"
	case fb.Action == actions.KindConfirm:
		return "onDismiss"
	case fb.NodeAction == actions.NodeExpand:
		return "onExpand"
	default:
		return "onClick"
	}
}

// politeAnswer is the answer to feedback nothing handles.
func politeAnswer(fb *actions.Feedback) string {
	switch {
	case fb.Action == actions.KindConfirm && !fb.Accepted:
		return "OK, nothing was done."
	case fb.Action == actions.KindConfirm:
		return "Noted. This action has no follow-up configured."
	default:
		return fmt.Sprintf("Nothing to show for %s on node %q.", agent.Clip(fb.NodeAction), agent.Clip(fb.NodeID))
	}
}
