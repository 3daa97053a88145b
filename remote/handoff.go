package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/watchdog"
)

// HandoffPoster sends hand-off messages to the agents of other gateways:
// *Client is the gateway's; package hub takes it, so that its tests can
// fake the other side.
type HandoffPoster interface {
	PostHandoff(ctx context.Context, endpoint string, message []byte, header http.Header) (status int, body []byte, err error)
}

var _ HandoffPoster = (*Client)(nil)

// PostHandoff forwards a hand-off message (seed 001, as JSON) to the
// agentgw at endpoint: POST HandoffURL(endpoint) with message as the body,
// the plugin's or run's header filtered by ForwardHeaders, Content-Type
// and Accept application/json.
//
// It returns the remote's status and body (at most MaxResponseSize bytes)
// whatever the status. err is nil for a 2xx; otherwise it is an
// *apierr.Error mapped as in Forward: UPSTREAM_UNAVAILABLE,
// UPSTREAM_TIMEOUT, apierr.Canceled's when ctx ends, and, for a status
// other than 2xx, UPSTREAM_ERROR carrying the status (or the code of an
// ERROR_RESPONSE body) whose Recoverable says whether trying again may
// help (429, 5xx, or the remote's own word), for a delivery that retries.
// A body over the limit is UPSTREAM_ERROR with the status and no body.
func (c *Client) PostHandoff(ctx context.Context, endpoint string, message []byte, header http.Header) (status int, body []byte, err error) {
	start := time.Now()
	target, uerr := HandoffURL(endpoint)
	if uerr != nil {
		return 0, nil, badEndpoint(uerr)
	}
	u, _ := parseEndpoint(target)
	shown := Redacted(u)
	e := c.do(ctx, shown, endpoint, target, header, func(cl *call, hc context.Context, _ context.CancelCauseFunc, wd *watchdog.Watchdog) (*http.Response, *apierr.Error) {
		req, err := c.newRequest(hc, target, endpoint, message, header, "application/json")
		if err != nil {
			return nil, apierr.Internal(err)
		}
		resp, err := c.http.Do(req)
		if err != nil {
			return nil, cl.unavailable(err)
		}
		wd.Activity()
		status = resp.StatusCode
		body, err = io.ReadAll(&meter{body: resp.Body, wd: wd, max: c.cfg.MaxResponseSize})
		switch {
		case errors.Is(err, errFrameTooLarge) || len(body) > c.cfg.MaxResponseSize:
			body = nil
			return resp, cl.protocolError(fmt.Sprintf("answered %d with a body larger than %d bytes", status, c.cfg.MaxResponseSize))
		case err != nil:
			body = nil
			return resp, cl.fail(err, apierr.CodeUpstreamError, fmt.Sprintf("the remote agent service at %s answered %d, and its body could not be read", shown, status))
		case status < 200 || status > 299:
			return resp, cl.statusError(status, body)
		}
		return resp, nil
	})
	if e != nil {
		err = e // a nil *apierr.Error must not become a non-nil error
	}
	if c.log.Enabled(ctx, slog.LevelDebug) {
		c.log.DebugContext(ctx, "hand-off posted to a remote", "endpoint", shown, "status", status, "bytes", len(body),
			"duration", time.Since(start), "error", err)
	}
	return status, body, err
}
