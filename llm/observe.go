package llm

import (
	"bytes"
	"context"
	"errors"
	"strconv"

	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/sse"
)

// What a relay looks for in the chunks of an observed call.
var (
	usageKey  = []byte(`"usage"`)
	usageNull = []byte(`"usage":null`)
)

// watch starts the observation of a call when ctx carries an
// observe.Watch: the returned call's end reports res and err. Without one
// the call is not watched (watched is false) and nothing of it is
// inspected. No function is made for the call's end: it is reported on
// every request the gateway observes (issue 29).
func watch(ctx context.Context, req *ChatRequest, stream bool) (context.Context, watchedCall) {
	w := observe.From(ctx)
	if w == nil {
		return ctx, watchedCall{}
	}
	ctx, call := w.StartUpstream(ctx, observe.Upstream{Model: req.Model, Stream: stream, Messages: len(req.Messages)})
	return ctx, watchedCall{call: call, req: req, watched: true}
}

// watchedCall is a model call an observe.Watch watches; the zero value is
// one no Watch does.
type watchedCall struct {
	call    observe.UpstreamCall
	req     *ChatRequest
	watched bool
}

// end reports how the call went.
func (c watchedCall) end(res Result, err error) {
	if !c.watched {
		return
	}
	req := c.req
	u := observe.Usage{In: res.Usage.In, Out: res.Usage.Out}
	if !res.Usage.Reported {
		// No usage from the upstream: the prompt's size and, as most
		// platforms stream about a token a chunk, the chunks.
		u = observe.Usage{In: estimatePrompt(req), Out: res.Usage.Out, Estimated: true}
		if u.Out == 0 {
			u.Out = res.Chunks
		}
	}
	out := observe.UpstreamResult{Model: res.Model, Status: res.Status, Attempts: res.Attempts, FirstByte: res.FirstByte,
		Chunks: res.Chunks, Usage: u, FinishReason: res.FinishReason}
	if out.Model == "" {
		out.Model = req.Model
	}
	var le *Error
	if errors.As(err, &le) {
		out.Code = le.Code()
		if out.Status == 0 {
			out.Status = le.Status
		}
	} else if err != nil {
		out.Code = "INTERNAL"
	}
	c.call.End(out)
}

// estimatePrompt estimates the tokens of req's messages.
func estimatePrompt(req *ChatRequest) int {
	n := 0
	for _, m := range req.Messages {
		n += EstimateTokens(m.Content) + 4
	}
	return n
}

// TokenUsage is the tokens an upstream reported for a call.
type TokenUsage struct {
	In, Out int
	// Reported is set when the upstream sent a usage object.
	Reported bool
}

// inspect reads a chunk of an observed call for its usage and finish
// reason; finished is set when the chunk carries the finish reason, usage
// when it may have a usage object (the relay found "usage" in it and no
// "usage":null, or a letter written as an escape, which a key spelled with
// escapes needs). Only the members are read, with the relay's scanner
// (sse.Field), never the whole chunk decoded.
func (r *relay) inspect(data []byte, finished, usage bool) {
	if usage {
		if v, ok := sse.Field(data, "usage"); ok && len(v) > 0 && v[0] == '{' {
			r.usage = TokenUsage{In: intField(v, "prompt_tokens"), Out: intField(v, "completion_tokens"), Reported: true}
		}
	}
	if finished && r.finishReason == "" {
		if i := bytes.Index(data, finishKey); i >= 0 {
			if v, ok := sse.LeadingValue(data[i+len(finishKey):]); ok && len(v) > 1 && v[0] == '"' {
				r.finishReason, _ = strconv.Unquote(string(v))
			}
		}
	}
}

// intField is the integer member key of the JSON object obj, 0 when it
// has none.
func intField(obj []byte, key string) int {
	v, ok := sse.Field(obj, key)
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(string(v))
	if err != nil {
		return 0
	}
	return n
}
