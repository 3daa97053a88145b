package runner

import (
	"cmp"
	"context"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/stage"
	"github.com/agentgw/agentgw/apierr"
)

// prepareRemote prepares a request to a remote agent: any command, for the
// remote knows its own; feedback verified here, and owned by the remote
// agents (RunnerConfig.Remote), which put its state back for the remote.
func (r *Runner) prepareRemote(run *Run, endpoint string) (*Run, error) {
	req := run.req
	if r.cfg.Remote == nil {
		return nil, apierr.Errorf(apierr.CodeUpstreamNotConfigured, "agent %q runs at %s, and this gateway forwards to no remote agents", run.agent.Name(), endpoint)
	}
	name := cmp.Or(req.Command, program.DefaultCommand)
	if req.Action != nil {
		var err error
		if name, err = r.verifyFeedback(run); err != nil {
			return nil, err
		}
		if !r.cfg.Remote.Owns(run.feedback.Data) {
			return nil, stateInvalid("the action state is not one of this remote agent's actions", nil)
		}
	}
	run.cmd = &program.Command{Def: &agent.Command{Name: name}, ActionsByKey: map[string]*program.Action{}}
	run.remote = endpoint
	if req.Context == nil {
		return run, nil
	}
	if err := r.bindConversation(run); err != nil {
		return nil, err
	}
	return run, nil
}

// forwardRemote runs the request at the remote agent (RunnerConfig.Remote),
// its stream into em.
func (run *Run) forwardRemote(ctx context.Context, em emit.Emitter) error {
	rr := &stage.RemoteRequest{Agent: run.agent.Name(), Command: run.cmd.Def.Name, Endpoint: run.remote,
		Body: run.req.Body, Header: run.req.Header, Context: run.req.Context, ContextID: run.req.ContextID,
		Signer: run.cfg.Signer, Sink: em}
	if run.feedback != nil {
		rr.Feedback = run.feedback.Data
	}
	return run.cfg.Remote.Forward(ctx, rr)
}
