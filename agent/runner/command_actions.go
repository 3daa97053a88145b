package runner

import (
	"fmt"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/apierr"
)

// actionClaims are the claims of an action the run's command sends for
// step, as part of run runID: the request's endpoint agent, with the run's
// own agent in Data when it is another one, so that feedback reaches it.
func (run *Run) actionClaims(step, kind, runID string) actions.Claims {
	c := actions.Claims{Agent: run.endpoint, Command: run.cmd.Def.Name, Step: step, Kind: kind, Run: runID}
	if a := run.agent.Name(); a != c.Agent {
		c.Data = map[string]string{"agent": a}
	}
	return c
}

// emitAction renders an action, signs its state and sends it.
func (run *Run) emitAction(em emit.Emitter, ca *program.Action, env *tmpl.Env) (*actions.Action, error) {
	a, err := tmpl.RenderAction(ca.Spec, env)
	if err != nil {
		return nil, apierr.New(apierr.CodeActionInvalid, fmt.Sprintf("action %s of command %q is invalid after rendering: %v", ca.Key, run.cmd.Def.Name, err)).Wrap(err)
	}
	claims := run.actionClaims(ca.Key, a.Kind, run.runID())
	if a.Tree != nil {
		claims.TreeID = a.Tree.TreeID
		if fb := run.feedback; fb != nil && fb.Kind == actions.KindTree && fb.TreeID == a.Tree.TreeID && len(ca.Handlers) == 0 {
			// A batch of children answering an expand extends the tree that
			// asked for it: feedback on its nodes goes to that tree's handlers.
			claims.Command, claims.Step, claims.Run = fb.Command, fb.Step, fb.Run
		}
	}
	if a.State, err = run.cfg.Signer.Sign(claims); err != nil {
		return nil, apierr.Internal(fmt.Errorf("signing action state: %w", err))
	}
	run.actionsSent.Store(true)
	if err := em.Action(a); err != nil {
		return nil, apierr.Canceled(err)
	}
	return a, nil
}
