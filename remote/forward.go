package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"time"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/watchdog"
	"github.com/agentgw/agentgw/llm"
)

// Sink receives what a remote agent streams, in order; the runner's
// emitter (emit.Emitter) satisfies it, as does stage.RemoteSink, its twin
// on the runner's side. An error from it means the client went away: the
// call to the remote is abandoned at once.
type Sink interface {
	// Chunk relays one chat.completion.chunk JSON object as the remote
	// sent it; the gateway's SSE writer puts its own id on it.
	Chunk(raw []byte) error
	// Action sends a confirm or tree action the remote sent, validated.
	Action(a *actions.Action) error
	// Error reports a failure the remote reported in its stream.
	Error(e *apierr.Error) error
}

// Forwarder forwards agent requests to remote agent services and relays
// their streams: *Client is the gateway's. It is the one interface of
// forwarding: Agents forwards the registry's remote agents
// (service.endpoint) through it and package collab questions to remote
// agents, so that their tests can fake the remote side.
type Forwarder interface {
	Forward(ctx context.Context, endpoint, agent string, body []byte, header http.Header, sink Sink) error
}

var _ Forwarder = (*Client)(nil)

// Forward sends an agent request to the remote agent service at endpoint
// and relays its stream to sink: the gateway answers the plugin with it as
// with a model's stream, under its own id, terminator and error rules.
//
// The request is a POST of body, the agent request as the plugin sent it,
// to AgentURL(endpoint, agent); when agent is not "" the body's "agent"
// member is set to it (SetAgent) without re-encoding the rest. The
// plugin's header is filtered by ForwardHeaders; Content-Type is
// application/json, Accept text/event-stream.
//
// Of the remote's stream (docs/protocol.md §3):
//   - each text chunk (data: without an event name, or "message") goes to
//     sink.Chunk undecoded, except the remote's end chunk (a finish_reason
//     and an empty delta in every choice), which is dropped: the gateway
//     writes its own end;
//   - its terminator, "[DONE]" or "[Done]", ends the stream and is not
//     passed on; what follows it is drained in the background;
//   - a copilot_action is decoded and validated (actions.Parse, Validate)
//     and goes to sink.Action; an invalid one ends the call with
//     UPSTREAM_ERROR;
//   - a copilot_error goes to sink.Error with the remote's code (see
//     remoteCode), message, recoverable and suggestedAction, source
//     upstream, and the stream goes on to its end;
//   - an "error" event, or a chunk with a top-level non-null "error" (the
//     seed-003 sample pipes a model's stream, which may carry one), ends
//     the call with UPSTREAM_ERROR and the message;
//   - other events and comments are ignored.
//
// A stream is complete once its terminator came, or an end chunk (a
// finish_reason) or a copilot_error did and the body ended; any other end
// of the body is a truncated answer (UPSTREAM_ERROR).
//
// Failures are *apierr.Error: connection failures UPSTREAM_UNAVAILABLE, the
// first-byte and idle timeouts UPSTREAM_TIMEOUT, a non-2xx status
// UPSTREAM_ERROR carrying the status and the remote's message (or the
// code and message of an ERROR_RESPONSE body), a 2xx that is not
// text/event-stream, a frame over MaxFrameSize, a malformed chunk (the
// sink's sse.ErrMalformedChunk) and a truncated stream UPSTREAM_ERROR;
// all with source upstream and status 502. When ctx ends, or the sink
// fails, the request to the remote is closed at once and the error is
// apierr.Canceled's. No message or cause holds a credential: the
// endpoint's user information and query values, the forwarded and the
// endpoint's credential headers and Config.Secrets are redacted.
func (c *Client) Forward(ctx context.Context, endpoint, agentName string, body []byte, header http.Header, sink Sink) error {
	start := time.Now()
	f := &forward{sink: sink, max: c.cfg.MaxFrameSize, agentName: agentName}
	var err error
	if e := c.forward(ctx, f, endpoint, body, header); e != nil {
		err = e // a nil *apierr.Error must not become a non-nil error
	}
	if c.log.Enabled(ctx, slog.LevelDebug) {
		c.log.DebugContext(ctx, "remote agent call finished", "endpoint", f.shown, "agent", agentName,
			"chunks", f.chunks, "actions", f.actions, "errors", f.errors, "duration", time.Since(start), "error", err)
	}
	return err
}

// forward is Forward, recording what was relayed in f.
func (c *Client) forward(ctx context.Context, f *forward, endpoint string, body []byte, header http.Header) *apierr.Error {
	target, err := AgentURL(endpoint, f.agentName)
	if err != nil {
		return badEndpoint(err)
	}
	u, _ := parseEndpoint(target)
	f.shown = Redacted(u)
	if f.agentName != "" {
		if body, err = SetAgent(body, f.agentName); err != nil {
			return apierr.Internal(err)
		}
	}
	return c.do(ctx, f.shown, endpoint, target, header, func(cl *call, hc context.Context, cancel context.CancelCauseFunc, wd *watchdog.Watchdog) (*http.Response, *apierr.Error) {
		req, err := c.newRequest(hc, target, endpoint, body, header, "text/event-stream")
		if err != nil {
			return nil, apierr.Internal(err)
		}
		resp, err := c.http.Do(req)
		if err != nil {
			return nil, cl.unavailable(err)
		}
		wd.Activity()
		if e := c.checkStream(cl, resp); e != nil {
			return resp, e
		}
		f.call, f.cancel = cl, cancel
		return resp, f.relay(c, resp.Body, wd)
	})
}

// badEndpoint is the error of an endpoint that is not a URL the client
// can call: the agent's definition is wrong.
func badEndpoint(err error) *apierr.Error {
	return apierr.New(apierr.CodeUpstreamUnavailable, "the remote agent's service.endpoint is not usable: "+err.Error()).
		From(apierr.SourceServer).WithStatus(http.StatusBadGateway).
		Suggest("the gateway's operator should fix the agent's service.endpoint (an absolute http(s) URL)")
}

// exchange makes the call on hc, the call's context, and reads its answer;
// it returns the response (nil when none came) and the call's error.
type exchange func(cl *call, hc context.Context, cancel context.CancelCauseFunc, wd *watchdog.Watchdog) (*http.Response, *apierr.Error)

// errSinkFailed cancels the call to the remote when the sink failed.
var errSinkFailed = errors.New("remote: the client went away; the remote call is abandoned")

// do runs one call: the call's context outlives ctx only to drain the rest
// of a body in the background once ex succeeded (after a stream's
// terminator); until then ctx's end cancels it, closing the request to the
// remote. The watchdog bounds the remote's silence.
func (c *Client) do(ctx context.Context, shown, endpoint, target string, header http.Header, ex exchange) *apierr.Error {
	hc, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	unlink := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	wd := watchdog.Start(cancel, time.Now(), c.cfg.FirstByteTimeout, c.cfg.IdleTimeout)
	cl := &call{ctx: ctx, call: hc, endpoint: shown, redact: c.redactor(target, endpoint, header)}
	resp, e := ex(cl, hc, cancel, wd)
	wd.Stop()
	switch {
	case resp == nil:
		unlink()
		cancel(nil)
	case unlink() && e == nil:
		go drainAndClose(resp.Body, cancel)
	default:
		cancel(nil)
		_ = resp.Body.Close()
	}
	return e
}

// redactor removes every credential the call knows of from its errors.
func (c *Client) redactor(target, endpoint string, header http.Header) *llm.Redactor {
	secrets := slices.Clone(c.cfg.Secrets)
	for _, s := range []string{target, endpoint} {
		if u, err := parseEndpoint(s); err == nil {
			secrets = append(secrets, endpointSecrets(u)...)
		}
	}
	return llm.NewRedactor(secrets, header, c.endpointHeader(endpoint))
}

// checkStream checks that a response is a 2xx event stream.
func (c *Client) checkStream(cl *call, resp *http.Response) *apierr.Error {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		if err != nil && len(body) == 0 {
			return cl.fail(err, apierr.CodeUpstreamError,
				fmt.Sprintf("the remote agent service at %s answered %d, and its body could not be read", cl.endpoint, resp.StatusCode))
		}
		return cl.statusError(resp.StatusCode, body)
	}
	ct := resp.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "text/event-stream" {
		return cl.protocolError(fmt.Sprintf("answered %d with Content-Type %q, not an event stream (text/event-stream)",
			resp.StatusCode, apierr.Clip(ct)))
	}
	return nil
}

// Events after the terminator beyond this many bytes or this long are not
// drained.
const (
	drainLimit = 64 << 10
	drainGrace = 250 * time.Millisecond
)

// drainAndClose reads what follows the terminator, briefly, so that the
// connection can be reused once the remote ends its body, then closes the
// body and ends the call. It runs in the background: the plugin's stream
// does not wait for the remote's end of body.
func drainAndClose(body io.ReadCloser, cancel context.CancelCauseFunc) {
	t := time.AfterFunc(drainGrace, func() { cancel(nil) })
	_, _ = io.Copy(io.Discard, io.LimitReader(body, drainLimit))
	t.Stop()
	_ = body.Close()
	cancel(nil)
}
