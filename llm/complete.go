package llm

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentgw/agentgw/internal/watchdog"
)

// outbound is what Complete puts on the context for policyDoer: the body to
// send and the plugin's headers.
type outbound struct {
	body   []byte
	header http.Header
	// retryAfter is the wait the upstream's response asked for.
	retryAfter time.Duration
}

type outboundKey struct{}

// policyDoer is the HTTPDoer of the go-openai client. It sends our own
// request instead of go-openai's: the exact body ChatRequest built (so that
// pass-through fields and raw messages go out verbatim, as in Stream) with
// our header policy, through our *http.Client.
type policyDoer struct{ c *Client }

// Do sends the request Complete prepared to the URL go-openai built.
func (d policyDoer) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_ = r.Body.Close()
	}
	out, ok := r.Context().Value(outboundKey{}).(*outbound)
	if !ok {
		return nil, errors.New("llm: request not prepared by Complete")
	}
	req, err := d.c.newRequest(r.Context(), r.URL.String(), out.body, out.header, "application/json")
	if err != nil {
		return nil, err
	}
	resp, err := d.c.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 400 {
		out.retryAfter = retryAfter(resp.Header, time.Now())
	}
	// A body encoded unasked (deflate) is decoded, so that its text is
	// read and redacted.
	if err := DecodeBody(resp); err != nil {
		_ = resp.Body.Close()
		return nil, err
	}
	return resp, nil
}

// Complete makes a non-streamed call ("stream": false) through go-openai's
// client and returns the first choice's content. FirstByteTimeout bounds the
// whole call, since a non-streamed upstream answers only when it is done.
// Failures are *Error.
func (c *Client) Complete(ctx context.Context, req *ChatRequest) (string, error) {
	msg, err := c.complete(ctx, req)
	return msg.Content, err
}

// CompleteTools is Complete for a request that offers tools (req.Tools): it
// returns the first choice's content ("" when the model answered with tool
// calls only) and its tool calls, nil when it made none.
func (c *Client) CompleteTools(ctx context.Context, req *ChatRequest) (string, []ToolCall, error) {
	msg, err := c.complete(ctx, req)
	if err != nil {
		return "", nil, err
	}
	var calls []ToolCall
	for _, tc := range msg.ToolCalls {
		calls = append(calls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return msg.Content, calls, nil
}

// complete makes the non-streamed call, retried as the policy and the
// fallback models allow, and returns the first choice's message.
func (c *Client) complete(ctx context.Context, req *ChatRequest) (openai.ChatCompletionMessage, error) {
	req = c.guard(ctx, req)
	body, err := req.body(false)
	if err != nil {
		return openai.ChatCompletionMessage{}, err
	}
	start := time.Now()
	ctx, observed := watch(ctx, req, false)
	res := Result{Model: req.Model, Attempts: 1}
	msg, err := c.completeOnce(ctx, req, body, start, &res)
	if err != nil {
		res.Model, err = c.retry(ctx, req, start, err, true, func(r *ChatRequest) (bool, error) {
			body, err := r.body(false)
			if err != nil {
				return false, err
			}
			res.Attempts++
			msg, err = c.completeOnce(ctx, r, body, start, &res)
			return true, err
		})
	}
	if observed.watched {
		res.FirstByte = time.Since(start)
		if !res.Usage.Reported {
			res.Usage.Out = EstimateTokens(msg.Content)
		}
		observed.end(res, err)
	}
	return msg, err
}

// completeOnce makes one attempt of the non-streamed call with body, the
// request built for req; the first-byte timeout counts from start.
// The answer's usage, finish reason and model go into res.
func (c *Client) completeOnce(ctx context.Context, req *ChatRequest, body []byte, start time.Time, res *Result) (openai.ChatCompletionMessage, error) {
	var none openai.ChatCompletionMessage
	call, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	wd := watchdog.Start(cancel, start, c.cfg.FirstByteTimeout, 0)
	defer wd.Stop()
	r := relay{ctx: ctx, call: call}
	out := &outbound{body: body, header: req.Header}
	call = context.WithValue(call, outboundKey{}, out)
	resp, err := c.openai.CreateChatCompletion(call, openai.ChatCompletionRequest{Model: req.Model})
	if err != nil {
		e := r.completeError(err)
		e.retryAfter = out.retryAfter
		return none, c.cleanError(e, req.Header)
	}
	res.Status = http.StatusOK
	if u := resp.Usage; u.PromptTokens > 0 || u.CompletionTokens > 0 {
		res.Usage = TokenUsage{In: u.PromptTokens, Out: u.CompletionTokens, Reported: true}
	}
	if len(resp.Choices) == 0 {
		return none, &Error{Kind: KindStream, Message: "the upstream answered without any choice"}
	}
	res.FinishReason = string(resp.Choices[0].FinishReason)
	res.Chunks = 1
	return resp.Choices[0].Message, nil
}

// completeError turns an error of go-openai into an *Error.
func (r *relay) completeError(err error) *Error {
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	var urlErr *url.Error
	switch {
	case r.ctx.Err() != nil || context.Cause(r.call) != nil:
		return r.fail(err, KindStream, "the upstream call was interrupted")
	case errors.As(err, &apiErr):
		return &Error{Kind: KindStatus, Status: apiErr.HTTPStatusCode, Message: apiErr.Message, Err: err}
	case errors.As(err, &reqErr):
		msg := upstreamMessage(reqErr.Body)
		if msg == "" {
			msg = http.StatusText(reqErr.HTTPStatusCode)
		}
		return &Error{Kind: KindStatus, Status: reqErr.HTTPStatusCode, Message: msg, Err: err}
	case errors.As(err, &urlErr):
		return &Error{Kind: KindUnavailable, Message: "cannot connect to the upstream model platform", Err: err}
	}
	return &Error{Kind: KindStream, Message: "the upstream answer is not a chat completion", Err: err}
}
