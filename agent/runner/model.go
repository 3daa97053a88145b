package runner

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/llm"
)

// callModel builds the prompt and relays the upstream's streamed answer.
func (run *Run) callModel(ctx context.Context, em Emitter) error {
	if run.cfg.LLM == nil {
		return notConfigured(run.cmd.def.Name)
	}
	msgs, err := run.buildPrompt(ctx)
	if err != nil {
		return err
	}
	if len(run.cmd.tools) > 0 {
		l := &toolLoop{run: run, tools: run.cmd.tools, model: run.model, fallbacks: run.fallbacks, msgs: msgs, stream: true,
			start: len(msgs)}
		text, err := l.converse(ctx, em)
		if err == nil {
			l.keepTurn(text)
		}
		return err
	}
	req := &llm.ChatRequest{Model: run.model, Messages: msgs, Extra: run.extra, Header: run.req.Header, FallbackModels: run.fallbacks}
	res, err := run.cfg.LLM.Stream(ctx, req, em)
	if err != nil {
		return upstreamError(err)
	}
	if run.debugging() {
		run.logger().Debug("upstream answered", "model", res.Model, "attempts", res.Attempts, "chunks", res.Chunks, "first_byte", res.FirstByte)
	}
	return nil
}

// upstreamError maps an llm failure to the error the user sees.
func upstreamError(err error) error {
	var le *llm.Error
	if !errors.As(err, &le) {
		return agent.Canceled(err)
	}
	if le.Kind == llm.KindCanceled {
		return agent.Canceled(err)
	}
	// Whatever the code (a timeout, a refusal, the client leaving while
	// the model answered), the model platform failed: 502, upstream.
	e := agent.New(le.Code(), "").Wrap(err).From(agent.SourceUpstream).WithStatus(http.StatusBadGateway)
	e.Recoverable = le.Recoverable()
	switch le.Kind {
	case llm.KindStatus:
		e.UpstreamStatus = le.Status
		e.Message = fmt.Sprintf("the model platform answered %d: %s", le.Status, le.Message)
		if le.Status == 429 {
			e.SuggestedAction = "wait a moment and try again"
		}
	case llm.KindTimeout:
		e.Message = "the model platform did not answer in time: " + le.Message
		e.SuggestedAction = "try again; if it keeps happening the gateway's timeouts may be too short for this model"
	case llm.KindUnavailable:
		e.Message = "the model platform could not be reached: " + le.Message
		e.SuggestedAction = "check the gateway's upstream URL and that the platform is up"
	default:
		e.Message = "the model platform failed while answering: " + le.Message
	}
	return e
}
