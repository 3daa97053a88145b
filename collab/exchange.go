package collab

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// exchange is one ask's messages as they happen.
type exchange struct {
	a          *Asker
	req        *askRequest
	transport  string
	onProgress func(Message)
	msgs       []Message
}

// reply makes a message from the asked agent about the request.
func (x *exchange) reply(typ Type, content any) Message {
	return x.a.message(x.a.cfg.NewID(), typ, x.req.to, x.req.from, content, map[string]any{"request_id": x.req.id})
}

// progress records a progress line and passes it on.
func (x *exchange) progress(line string) {
	m := x.reply(TypeProgress, ProgressContent{Text: line})
	x.msgs = append(x.msgs, m)
	if x.onProgress != nil {
		x.onProgress(m)
	}
}

// respond makes the response once the asked agent's answer ended: its last
// line's rest is the last progress.
func (x *exchange) respond(c *collector) (Message, []Message, error) {
	text, rest, acts, e := c.result()
	if rest != "" {
		x.progress(rest)
	}
	content := ResponseContent{Status: StatusSuccess, Result: text, Actions: acts}
	if e != nil {
		content.Status, content.Error = StatusError, &ErrorContent{Code: e.Code, Message: e.Message}
	}
	m := x.reply(TypeResponse, content)
	m.Metadata["transport"] = x.transport
	x.msgs = append(x.msgs, m)
	x.a.cfg.Logger.Info("ask answered", "request_id", x.req.id, "from", x.req.from, "to", x.req.to, "status", content.Status)
	if e != nil && e.Err != nil {
		x.a.cfg.Logger.Warn("asked agent failed", "request_id", x.req.id, "to", x.req.to, "code", e.Code, "err", e.Err)
	}
	return m, x.msgs, nil
}

// cancel sends the CANCEL when the ask ends before its response: the
// asked run's context is cancelled (for a remote agent, its connection
// closes), and Ask waits a grace period for it to stop.
func (x *exchange) cancel(ctx, askCtx context.Context, timeout time.Duration, c *collector,
	cancelRun context.CancelCauseFunc, done <-chan struct{}) (Message, []Message, error) {
	to := x.req.to
	var reason string
	var err error
	switch {
	case errors.Is(context.Cause(askCtx), errOwnTimeout):
		reason, err = ReasonTimeout, fmt.Errorf("agent %q did not answer within %s: %w", to, timeout, ErrTimeout)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		reason, err = ReasonTimeout, fmt.Errorf("agent %q did not answer before the caller's deadline: %w", to, ErrTimeout)
	default:
		reason, err = ReasonCanceled, fmt.Errorf("the caller went away before agent %q answered: %w", to, ErrCanceled)
	}
	c.close()
	m := x.a.message(x.a.cfg.NewID(), TypeCancel, x.req.from, to, CancelContent{Reason: reason, Message: err.Error()},
		map[string]any{"request_id": x.req.id})
	x.msgs = append(x.msgs, m)
	cancelRun(err)
	grace := time.NewTimer(x.a.cfg.CancelGrace)
	defer grace.Stop()
	select {
	case <-done:
	case <-grace.C:
		x.a.cfg.Logger.Warn("asked agent still running after its cancel", "request_id", x.req.id, "to", to)
	}
	x.a.cfg.Logger.Info("ask cancelled", "request_id", x.req.id, "from", x.req.from, "to", to, "reason", reason)
	return Message{}, x.msgs, err
}
