package collab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/remote"
)

// Resolver says whether agent is remote, and at which endpoint.
type Resolver func(agent string) (endpoint string, ok bool)

// remoteBody is the agent request a remote agent gets for a question: the
// command, and the question as the user's input.
func remoteBody(to, command, question string) ([]byte, error) {
	type variable struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	body, err := json.Marshal(struct {
		Agent            string     `json:"agent"`
		Command          string     `json:"command"`
		ContextVariables []variable `json:"contextVariables"`
	}{to, command, []variable{{"userInputPrompt", question}}})
	if err != nil {
		return nil, fmt.Errorf("encoding the request to %s: %w", to, err)
	}
	return body, nil
}

// forward runs a request on a remote agent, its answer into c. A failure
// to reach it, or to get an answer, becomes the response's error.
func forward(ctx context.Context, fw remote.Forwarder, endpoint string, req *askRequest, c *collector) {
	body, err := remoteBody(req.to, req.command, req.question)
	if err != nil {
		_ = c.Error(apierr.Internal(err))
		return
	}
	h := req.header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "text/event-stream")
	h.Set("X-Request-Id", req.id)
	if err := fw.Forward(ctx, endpoint, req.to, body, h, c); err != nil && ctx.Err() == nil {
		var e *apierr.Error
		if !errors.As(err, &e) {
			// The cause (addresses, the transport's words) is logged, not shown.
			e = apierr.New(apierr.CodeUpstreamUnavailable, fmt.Sprintf("agent %q could not be reached", req.to)).Wrap(err)
		}
		_ = c.Error(e)
	}
}
