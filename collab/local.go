package collab

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentgw/agentgw/agent/dispatch"
	"github.com/agentgw/agentgw/agent/request"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/contextvars"
)

// runLocal runs a request on an agent of this gateway through l (its runner),
// its answer into c: the question is the run's user input, its id the
// run's request id. A request the runner refuses (no such agent or
// command, a context variable the command requires) is the response's
// error. Cancelling ctx stops the run.
func runLocal(ctx context.Context, l dispatch.Local, req *askRequest, c *collector) {
	set, err := questionContext(req.question)
	if err != nil {
		_ = c.Error(apierr.Internal(fmt.Errorf("asking agent %q: %w", req.to, err)))
		return
	}
	if err := l.Dispatch(ctx, &request.Request{ID: req.id, Agent: req.to, Command: req.command, Context: set, Header: req.header.Clone()}, c); err != nil {
		_ = c.Error(apierr.AsError(err))
	}
}

// questionContext is the context variables of an asked run: the question
// as the user's input, decoded as a plugin's would be.
func questionContext(question string) (*contextvars.Set, error) {
	data, err := json.Marshal([]map[string]string{{"name": "userInputPrompt", "value": question}})
	if err != nil {
		return nil, err
	}
	return contextvars.Decode(data)
}

// errNoRunner is the error of an ask to a local agent that has no runner
// to go through: it comes from no run, and the Asker has no Config.Local.
func errNoRunner(to string) *apierr.Error {
	return apierr.Internal(fmt.Errorf("asking agent %q: the asker has no runner yet", to))
}
