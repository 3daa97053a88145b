package runner

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/llm"
)

// callModel builds the prompt and relays the upstream's streamed answer.
func (run *Run) callModel(ctx context.Context, em emit.Emitter) error {
	if run.cfg.LLM == nil {
		return notConfigured(run.cmd.Def.Name)
	}
	msgs, err := run.buildPrompt(ctx)
	if err != nil {
		return err
	}
	if len(run.cmd.Tools) > 0 {
		l := run.toolLoop(msgs)
		text, err := l.converse(ctx, em)
		if err == nil {
			l.keepTurn(text)
		}
		return err
	}
	res, err := run.cfg.LLM.Stream(ctx, run.modelRequest(msgs), em)
	if err != nil {
		return upstreamError(err)
	}
	if run.debugging() {
		run.logger().Debug("upstream answered", "model", res.Model, "attempts", res.Attempts, "chunks", res.Chunks, "first_byte", res.FirstByte)
	}
	return nil
}

// toolLoop is the loop of the command's own prompt msgs with its tools.
func (run *Run) toolLoop(msgs []llm.Message) *toolLoop {
	return &toolLoop{run: run, tools: run.cmd.Tools, model: run.model, fallbacks: run.fallbacks, msgs: msgs, stream: true,
		start: len(msgs)}
}

// modelRequest is the request of the command's own prompt msgs, without tools.
func (run *Run) modelRequest(msgs []llm.Message) *llm.ChatRequest {
	return &llm.ChatRequest{Model: run.model, Messages: msgs, Extra: run.extra, Header: run.req.Header, FallbackModels: run.fallbacks}
}

// UpstreamRequest is the body the command's own prompt would send the
// model first, byte for byte, built as Execute builds it but sent nowhere:
// for agent authors. A command without a prompt of its own (a reply, a
// plan whose llm steps build theirs as they run), a click and a resumed
// run have none to show: 400.
func (run *Run) UpstreamRequest(ctx context.Context) ([]byte, error) {
	switch {
	case run.remote != "":
		return nil, apierr.New(apierr.CodeBadRequest, "the agent is a remote one: its gateway builds the prompt")
	case run.feedback != nil || run.paused != nil:
		return nil, apierr.New(apierr.CodeBadRequest, "a click or a resumed run has no prompt of its own to show; send the request that started it")
	case !run.cmd.HasPrompt():
		return nil, apierr.New(apierr.CodeBadRequest, fmt.Sprintf("command %q of agent %q has no messageTemplates of its own: its plan's llm steps build their prompts as they run", run.cmd.Def.Name, run.agent.Name()))
	}
	msgs, err := run.buildPrompt(ctx)
	if err != nil {
		return nil, err
	}
	req := run.modelRequest(msgs)
	if len(run.cmd.Tools) > 0 {
		req = run.toolLoop(msgs).request()
	}
	body, err := req.Body()
	if err != nil {
		return nil, apierr.Internal(fmt.Errorf("encoding the upstream request: %w", err))
	}
	return body, nil
}

// upstreamError maps an llm failure to the error the user sees.
func upstreamError(err error) error {
	var le *llm.Error
	if !errors.As(err, &le) {
		return apierr.Canceled(err)
	}
	if le.Kind == llm.KindCanceled {
		return apierr.Canceled(err)
	}
	// Whatever the code (a timeout, a refusal, the client leaving while
	// the model answered), the model platform failed: 502, upstream.
	e := apierr.New(le.Code(), "").Wrap(err).From(apierr.SourceUpstream).WithStatus(http.StatusBadGateway)
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
