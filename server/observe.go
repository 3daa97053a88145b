package server

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/jsonlog"
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
//
// The line costs no allocation of its own: what it says of the routing
// and the model calls comes in the Outcome (observe.Watch.End); its
// attributes are handed to the handler as one inline group (an empty
// key), so the record holds one attribute where slog.Logger.LogAttrs
// would allocate for more than five, in an array reused from line to line
// when the handler is the gateway's JSON one (internal/jsonlog, which
// keeps nothing of a record and writes it without reflection); and the
// handler is called directly, without the caller's program counter the
// logger looks up (the process logger adds no source).
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
}

// lineAttrs are the attributes of access log lines, reused once the
// handler is done with them: only after a jsonlog.Handler, which keeps
// nothing of a record it handled.
var lineAttrs = sync.Pool{New: func() any { return new([16]slog.Attr) }}

// End implements observe.Run: it writes the line.
func (l *accessLine) End(o observe.Outcome) {
	r := l.req
	h := l.log.Handler()
	if !h.Enabled(l.ctx, slog.LevelInfo) {
		return
	}
	buf := lineAttrs.Get().(*[16]slog.Attr)
	attrs := append(buf[:0],
		slog.String("request_id", r.RequestID), slog.String("method", apierr.Clip(r.Method)), slog.String("path", apierr.Clip(r.Path)),
		slog.Int("status", o.Status), slog.Int64("bytes", o.Bytes),
		slog.Float64("ttfb_ms", millis(o.TTFB)), slog.Float64("duration_ms", millis(o.Duration)),
		slog.String("remote", r.Remote))
	if o.Routed {
		attrs = append(attrs, slog.String("agent", apierr.Clip(o.Agent)), slog.String("command", apierr.Clip(o.Command)),
			slog.String("outcome", o.Result))
	}
	if o.Code != "" {
		attrs = append(attrs, slog.String("code", o.Code))
	}
	if o.Model != "" {
		attrs = append(attrs, slog.String("model", apierr.Clip(o.Model)), slog.Int("tokens_in", o.Usage.In),
			slog.Int("tokens_out", o.Usage.Out), slog.Bool("tokens_estimated", o.Usage.Estimated))
	}
	if len(o.Redactions) > 0 {
		attrs = append(attrs, slog.String("redacted", redactionSummary(o.Redactions)))
	}
	if o.Withheld > 0 {
		attrs = append(attrs, slog.Int("withheld", o.Withheld))
	}
	rec := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
	rec.AddAttrs(slog.Attr{Value: slog.GroupValue(attrs...)})
	_ = h.Handle(l.ctx, rec)
	if _, ok := h.(*jsonlog.Handler); ok {
		*buf = [16]slog.Attr{}
		lineAttrs.Put(buf)
	}
}

// redactionSummary is the access log's "redacted" attribute: each rule
// and how many credentials of it were replaced, "aws-access-token:1,jwt:2"
// (rule ids, never a secret).
func redactionSummary(rs []observe.Redaction) string {
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(r.Rule)
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(r.Count))
	}
	return b.String()
}
