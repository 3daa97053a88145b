package server

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/observe"
)

// observeRequests begins the observe.Watch of each request with the
// server's observers (the access log first), and ends it with the
// response's status, size and timings and the code of the error answered
// before any stream. With no observer that wants the request it only
// hands the handler's error to echo.
func (s *Server) observeRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if len(s.cfg.Observers) == 0 && !s.log.Enabled(req.Context(), slog.LevelInfo) {
			// Nothing watches: not even the request's description is made.
			if err := next(c); err != nil {
				c.Error(err)
			}
			return nil
		}
		start := time.Now()
		ctx, w := s.observers.Begin(req.Context(), &observe.Request{Source: observe.SourceHTTP, Route: c.Path(),
			Method: req.Method, Path: req.URL.Path, RequestID: requestIDOf(c), Remote: c.RealIP(), Header: req.Header, Start: start})
		if w == nil {
			if err := next(c); err != nil {
				c.Error(err)
			}
			return nil
		}
		c.SetRequest(req.WithContext(ctx))
		tw := &timingWriter{ResponseWriter: c.Response().Writer}
		c.Response().Writer = tw
		err := next(c)
		var code string
		if err != nil {
			c.Error(err)
			code = toAgentError(err).Code
		}
		w.End(observe.Outcome{Code: code, Status: c.Response().Status, Bytes: c.Response().Size,
			TTFB: tw.ttfb(start), Duration: time.Since(start)})
		return nil
	}
}

// accessLog is the observer that writes one line per request with its id,
// agent, command, status, outcome, time to first byte and duration; what
// the client chose (method, path, names) is clipped to apierr.MaxEcho bytes.
// With the log above info level it watches nothing.
type accessLog struct{ log *slog.Logger }

// Begin implements observe.Observer.
func (a accessLog) Begin(ctx context.Context, r *observe.Request) (context.Context, observe.Run) {
	if !a.log.Enabled(ctx, slog.LevelInfo) {
		return ctx, nil
	}
	return ctx, &accessLine{log: a.log, ctx: ctx, req: r}
}

// accessLine is the access log's view of one request.
type accessLine struct {
	observe.Nop
	log *slog.Logger
	ctx context.Context
	req *observe.Request

	mu             sync.Mutex
	agent, command string
	routed         bool
	model          string
	tokensIn       int
	tokensOut      int
	estimated      bool
}

// Routed implements observe.Run.
func (l *accessLine) Routed(agent, command string, _ bool) {
	l.mu.Lock()
	l.agent, l.command, l.routed = agent, command, true
	l.mu.Unlock()
}

// Upstream implements observe.Run: the line names the model that answered
// and adds up the tokens of every call.
func (l *accessLine) Upstream(ctx context.Context, _ observe.Upstream) (context.Context, func(observe.UpstreamResult)) {
	return ctx, func(res observe.UpstreamResult) {
		l.mu.Lock()
		l.model = res.Model
		l.tokensIn += res.Usage.In
		l.tokensOut += res.Usage.Out
		l.estimated = l.estimated || res.Usage.Estimated
		l.mu.Unlock()
	}
}

// End implements observe.Run: it writes the line.
func (l *accessLine) End(o observe.Outcome) {
	r := l.req
	attrs := make([]slog.Attr, 0, 16)
	attrs = append(attrs,
		slog.String("request_id", r.RequestID), slog.String("method", apierr.Clip(r.Method)), slog.String("path", apierr.Clip(r.Path)),
		slog.Int("status", o.Status), slog.Int64("bytes", o.Bytes),
		slog.Float64("ttfb_ms", millis(o.TTFB)), slog.Float64("duration_ms", millis(o.Duration)),
		slog.String("remote", r.Remote))
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.routed {
		attrs = append(attrs, slog.String("agent", apierr.Clip(l.agent)), slog.String("command", apierr.Clip(l.command)),
			slog.String("outcome", o.Result))
	}
	if o.Code != "" {
		attrs = append(attrs, slog.String("code", o.Code))
	}
	if l.model != "" {
		attrs = append(attrs, slog.String("model", apierr.Clip(l.model)), slog.Int("tokens_in", l.tokensIn),
			slog.Int("tokens_out", l.tokensOut), slog.Bool("tokens_estimated", l.estimated))
	}
	l.log.LogAttrs(l.ctx, slog.LevelInfo, "request", attrs...)
}
