package observe

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// Observers is the gateway's observers; a nil or empty Observers watches
// nothing and costs nothing.
type Observers []Observer

// Begin starts watching a request with every observer: the returned
// context carries the Watch (see From). With no observer, or none that
// wants the request, it returns ctx and a nil Watch.
func (os Observers) Begin(ctx context.Context, r *Request) (context.Context, *Watch) {
	if len(os) == 0 {
		return ctx, nil
	}
	if r.Start.IsZero() {
		r.Start = time.Now()
	}
	var w *Watch
	for _, o := range os {
		var run Run
		ctx, run = o.Begin(ctx, r)
		if run == nil {
			continue
		}
		if w == nil {
			w = &Watch{start: r.Start}
		}
		w.runs = append(w.runs, run)
	}
	if w == nil {
		return ctx, nil
	}
	return With(ctx, w), w
}

// Watch is one request as every observer sees it: it fans each event out
// to the observers' Runs and keeps what the Outcome needs (the last error
// code, whether the run paused). All methods are no-ops on a nil Watch.
type Watch struct {
	runs  []Run
	start time.Time

	mu     sync.Mutex
	code   string
	paused bool
	ended  bool
}

type watchKey struct{}

// With returns ctx carrying w.
func With(ctx context.Context, w *Watch) context.Context {
	return context.WithValue(ctx, watchKey{}, w)
}

// From returns the Watch ctx carries, nil when none.
func From(ctx context.Context) *Watch {
	w, _ := ctx.Value(watchKey{}).(*Watch)
	return w
}

// nopErr and the others end what a nil Watch started.
func nopErr(error)               {}
func nopUpstream(UpstreamResult) {}
func nopStep(StepResult)         {}
func nopTool(ToolResult)         {}

// Also adds r to the runs w reports to, for a handler that watches its
// own request (the OpenAI endpoint adds up the usage of its model calls).
// It must be called before the request's work starts, from the goroutine
// that serves it: the other methods read the list without a lock.
func (w *Watch) Also(r Run) {
	if w != nil {
		w.runs = append(w.runs, r)
	}
}

// Routed names the agent and command; see Run.Routed.
func (w *Watch) Routed(agent, command string, loaded bool) {
	if w == nil {
		return
	}
	for _, r := range w.runs {
		r.Routed(agent, command, loaded)
	}
}

// Phase starts a phase; see Run.Phase.
func (w *Watch) Phase(ctx context.Context, name string) (context.Context, func(error)) {
	if w == nil {
		return ctx, nopErr
	}
	ends := make([]func(error), len(w.runs))
	for i, r := range w.runs {
		ctx, ends[i] = r.Phase(ctx, name)
	}
	return ctx, func(err error) {
		for i := len(ends) - 1; i >= 0; i-- {
			ends[i](err)
		}
	}
}

// Upstream starts a model call; see Run.Upstream.
func (w *Watch) Upstream(ctx context.Context, u Upstream) (context.Context, func(UpstreamResult)) {
	if w == nil {
		return ctx, nopUpstream
	}
	ends := make([]func(UpstreamResult), len(w.runs))
	for i, r := range w.runs {
		ctx, ends[i] = r.Upstream(ctx, u)
	}
	return ctx, func(res UpstreamResult) {
		for i := len(ends) - 1; i >= 0; i-- {
			ends[i](res)
		}
	}
}

// Step starts a plan step's attempt; see Run.Step.
func (w *Watch) Step(ctx context.Context, s Step) (context.Context, func(StepResult)) {
	if w == nil {
		return ctx, nopStep
	}
	ends := make([]func(StepResult), len(w.runs))
	for i, r := range w.runs {
		ctx, ends[i] = r.Step(ctx, s)
	}
	return ctx, func(res StepResult) {
		for i := len(ends) - 1; i >= 0; i-- {
			ends[i](res)
		}
	}
}

// Tool starts a tool call; see Run.Tool.
func (w *Watch) Tool(ctx context.Context, t Tool) (context.Context, func(ToolResult)) {
	if w == nil {
		return ctx, nopTool
	}
	ends := make([]func(ToolResult), len(w.runs))
	for i, r := range w.runs {
		ctx, ends[i] = r.Tool(ctx, t)
	}
	return ctx, func(res ToolResult) {
		for i := len(ends) - 1; i >= 0; i-- {
			ends[i](res)
		}
	}
}

// Git starts a git operation; see Run.Git.
func (w *Watch) Git(ctx context.Context, op, repo string) (context.Context, func(error)) {
	if w == nil {
		return ctx, nopErr
	}
	ends := make([]func(error), len(w.runs))
	for i, r := range w.runs {
		ctx, ends[i] = r.Git(ctx, op, repo)
	}
	return ctx, func(err error) {
		for i := len(ends) - 1; i >= 0; i-- {
			ends[i](err)
		}
	}
}

// Handoff starts sending a hand-off; see Run.Handoff.
func (w *Watch) Handoff(ctx context.Context, h Handoff) (context.Context, func(error)) {
	if w == nil {
		return ctx, nopErr
	}
	ends := make([]func(error), len(w.runs))
	for i, r := range w.runs {
		ctx, ends[i] = r.Handoff(ctx, h)
	}
	return ctx, func(err error) {
		for i := len(ends) - 1; i >= 0; i-- {
			ends[i](err)
		}
	}
}

// Paused reports a pause; see Run.Paused.
func (w *Watch) Paused(kind string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.paused = true
	w.mu.Unlock()
	for _, r := range w.runs {
		r.Paused(kind)
	}
}

// Failed reports an error frame; see Run.Failed.
func (w *Watch) Failed(code string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.code = code
	w.mu.Unlock()
	for _, r := range w.runs {
		r.Failed(code)
	}
}

// Answered reports the code of an error a handler answered by itself
// before any stream (an http.Handler such as the OpenAI endpoint's, which
// returns no error to the server): End takes it as the request's code when
// the caller gives none. Unlike Failed it is no error frame, so the
// observers see nothing until End.
func (w *Watch) Answered(code string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.code = code
	w.mu.Unlock()
}

// Inject adds the trace headers to an outgoing request's h; see
// Run.Inject. It is a no-op on a nil Watch: without a tracer nothing is
// added.
func (w *Watch) Inject(ctx context.Context, h http.Header) {
	if w == nil {
		return
	}
	for _, r := range w.runs {
		r.Inject(ctx, h)
	}
}

// End ends the request, once: o's Result and Code are completed from
// what the Watch saw when the caller left them empty (an error frame
// makes the result ResultError, a pause ResultPaused), and Duration from
// the request's start.
func (w *Watch) End(o Outcome) {
	if w == nil {
		return
	}
	w.mu.Lock()
	if w.ended {
		w.mu.Unlock()
		return
	}
	w.ended = true
	if o.Code == "" {
		o.Code = w.code
	}
	paused := w.paused
	w.mu.Unlock()
	if o.Result == "" {
		switch {
		case o.Code == "CANCELED":
			o.Result = ResultCanceled
		case o.Code != "":
			o.Result = ResultError
		case paused:
			o.Result = ResultPaused
		default:
			o.Result = ResultOK
		}
	}
	if o.Duration == 0 {
		o.Duration = time.Since(w.start)
	}
	for _, r := range w.runs {
		r.End(o)
	}
}

// Inject adds the trace headers of the request ctx belongs to, if any, to
// h: the one call the clients of other services make (the upstream, http
// and MCP tools, remote agents).
func Inject(ctx context.Context, h http.Header) { From(ctx).Inject(ctx, h) }

// Transport wraps rt so that each request carries the trace headers of
// the request its context belongs to (Inject), for clients whose requests
// the gateway does not build itself (the MCP SDK's). A nil rt is
// http.DefaultTransport.
func Transport(rt http.RoundTripper) http.RoundTripper {
	if rt == nil {
		rt = http.DefaultTransport
	}
	return injecting{rt}
}

type injecting struct{ rt http.RoundTripper }

// RoundTrip implements http.RoundTripper; the request is cloned before its
// header changes, as RoundTrippers must not modify theirs.
func (t injecting) RoundTrip(req *http.Request) (*http.Response, error) {
	if w := From(req.Context()); w != nil {
		req = req.Clone(req.Context())
		w.Inject(req.Context(), req.Header)
	}
	return t.rt.RoundTrip(req)
}
