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
//
// The observers are given the Watch's own copy of *r (r is not kept), so
// that a watched request costs one allocation for its Watch and its
// description together; r.Start is set when it was zero.
func (os Observers) Begin(ctx context.Context, r *Request) (context.Context, *Watch) {
	if len(os) == 0 {
		return ctx, nil
	}
	if r.Start.IsZero() {
		r.Start = time.Now()
	}
	w := &Watch{req: *r}
	w.runs = w.inline[:0]
	for _, o := range os {
		var run Run
		ctx, run = o.Begin(ctx, &w.req)
		if run != nil {
			w.runs = append(w.runs, run)
		}
	}
	if len(w.runs) == 0 {
		return ctx, nil
	}
	return With(ctx, w), w
}

// Watch is one request as every observer sees it: it fans each event out
// to the observers' Runs and keeps what the Outcome needs (the last error
// code, whether the run paused, the agent and command routed, the model
// calls' model and tokens). All methods are no-ops on a nil Watch.
type Watch struct {
	runs []Run
	// inline holds runs for the usual few observers (the access log, the
	// metrics, a tracer, a handler's own), without an allocation of its own.
	inline [4]Run
	// req is the request's description the observers were given.
	req Request

	mu     sync.Mutex
	code   string
	paused bool
	ended  bool
	// What Outcome reports of the routing and the model calls.
	routed         bool
	agent, command string
	model          string
	usage          Usage
	// What the content guard took out of the model calls' prompts.
	redactions []Redaction
	withheld   int
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
	w.mu.Lock()
	w.routed, w.agent, w.command = true, agent, command
	w.mu.Unlock()
	for _, r := range w.runs {
		r.Routed(agent, command, loaded)
	}
}

// Phase starts a phase; see Run.Phase.
func (w *Watch) Phase(ctx context.Context, name string) (context.Context, func(error)) {
	if w == nil {
		return ctx, nopErr
	}
	var ends endsOf[error]
	for _, r := range w.runs {
		var end func(error)
		ctx, end = r.Phase(ctx, name)
		ends.add(end)
	}
	return ctx, ends.fn(nopErr)
}

// Upstream starts a model call; see Run.Upstream and StartUpstream.
func (w *Watch) Upstream(ctx context.Context, u Upstream) (context.Context, func(UpstreamResult)) {
	if w == nil {
		return ctx, nopUpstream
	}
	ctx, c := w.StartUpstream(ctx, u)
	return ctx, c.End
}

// StartUpstream starts a model call as Upstream does, without a function
// made for its end: the returned UpstreamCall's End ends it. It is what
// the model client calls on every request (llm), where Upstream's closure
// would be an allocation per call.
func (w *Watch) StartUpstream(ctx context.Context, u Upstream) (context.Context, UpstreamCall) {
	if w == nil {
		return ctx, UpstreamCall{}
	}
	c := UpstreamCall{w: w}
	for _, r := range w.runs {
		var end func(UpstreamResult)
		ctx, end = r.Upstream(ctx, u)
		c.ends.add(end)
	}
	return ctx, c
}

// UpstreamCall is a model call a Watch watches. The zero UpstreamCall (a
// nil Watch's) does nothing.
type UpstreamCall struct {
	w    *Watch
	ends endsOf[UpstreamResult]
}

// End ends the call with its result, once: the Watch notes the model and
// adds up the tokens for the Outcome, then the observers' ends run,
// last-started first.
func (c UpstreamCall) End(res UpstreamResult) {
	w := c.w
	if w == nil {
		return
	}
	w.mu.Lock()
	w.model = res.Model
	w.usage.In += res.Usage.In
	w.usage.Out += res.Usage.Out
	w.usage.Estimated = w.usage.Estimated || res.Usage.Estimated
	w.mu.Unlock()
	c.ends.call(res)
}

// endsOf is the ends of what the Runs started, those not nil: the usual
// one or two inline, without an allocation; more in a slice.
type endsOf[T any] struct {
	inline [2]func(T)
	n      int
	more   []func(T)
}

func (e *endsOf[T]) add(end func(T)) {
	switch {
	case end == nil:
		return
	case e.n < len(e.inline):
		e.inline[e.n] = end
	default:
		e.more = append(e.more, end)
	}
	e.n++
}

// call runs the ends, last-started first.
func (e endsOf[T]) call(v T) {
	for i := len(e.more) - 1; i >= 0; i-- {
		e.more[i](v)
	}
	for i := min(e.n, len(e.inline)) - 1; i >= 0; i-- {
		e.inline[i](v)
	}
}

// fn is the ends as one function: nop when there are none, the only one
// as it is, else a function that calls them all.
func (e endsOf[T]) fn(nop func(T)) func(T) {
	switch e.n {
	case 0:
		return nop
	case 1:
		return e.inline[0]
	}
	return func(v T) { e.call(v) }
}

// Step starts a plan step's attempt; see Run.Step.
func (w *Watch) Step(ctx context.Context, s Step) (context.Context, func(StepResult)) {
	if w == nil {
		return ctx, nopStep
	}
	var ends endsOf[StepResult]
	for _, r := range w.runs {
		var end func(StepResult)
		ctx, end = r.Step(ctx, s)
		ends.add(end)
	}
	return ctx, ends.fn(nopStep)
}

// Tool starts a tool call; see Run.Tool.
func (w *Watch) Tool(ctx context.Context, t Tool) (context.Context, func(ToolResult)) {
	if w == nil {
		return ctx, nopTool
	}
	var ends endsOf[ToolResult]
	for _, r := range w.runs {
		var end func(ToolResult)
		ctx, end = r.Tool(ctx, t)
		ends.add(end)
	}
	return ctx, ends.fn(nopTool)
}

// Git starts a git operation; see Run.Git.
func (w *Watch) Git(ctx context.Context, op, repo string) (context.Context, func(error)) {
	if w == nil {
		return ctx, nopErr
	}
	var ends endsOf[error]
	for _, r := range w.runs {
		var end func(error)
		ctx, end = r.Git(ctx, op, repo)
		ends.add(end)
	}
	return ctx, ends.fn(nopErr)
}

// Handoff starts sending a hand-off; see Run.Handoff.
func (w *Watch) Handoff(ctx context.Context, h Handoff) (context.Context, func(error)) {
	if w == nil {
		return ctx, nopErr
	}
	var ends endsOf[error]
	for _, r := range w.runs {
		var end func(error)
		ctx, end = r.Handoff(ctx, h)
		ends.add(end)
	}
	return ctx, ends.fn(nopErr)
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

// Agent is the agent the request was routed to (Routed), "" before it is
// or on a nil Watch: the content guard's model calls apply its policy.
func (w *Watch) Agent() string {
	if w == nil {
		return ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.agent
}

// Redacted counts n credentials of rule that the content guard replaced
// in a model call's prompt, for the Outcome (the access log's line). It
// is a no-op on a nil Watch.
func (w *Watch) Redacted(rule string, n int) {
	if w == nil || n == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range w.redactions {
		if w.redactions[i].Rule == rule {
			w.redactions[i].Count += n
			return
		}
	}
	w.redactions = append(w.redactions, Redaction{Rule: rule, Count: n})
}

// Withheld counts n files whose content the content guard withheld from a
// model call's prompt, for the Outcome. It is a no-op on a nil Watch.
func (w *Watch) Withheld(n int) {
	if w == nil || n == 0 {
		return
	}
	w.mu.Lock()
	w.withheld += n
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
// makes the result ResultError, a pause ResultPaused), Duration from the
// request's start, and what it saw of the routing and the model calls
// (Routed, Agent, Command, Model, Usage) set.
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
	o.Routed, o.Agent, o.Command = w.routed, w.agent, w.command
	o.Model, o.Usage = w.model, w.usage
	o.Redactions, o.Withheld = w.redactions, w.withheld
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
		o.Duration = time.Since(w.req.Start)
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
