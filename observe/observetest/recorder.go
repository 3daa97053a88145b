// Package observetest has an Observer that records what it saw, for tests.
package observetest

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/agentgw/agentgw/observe"
)

// Recorder is an observe.Observer keeping every event of every request as
// a line of text, in the order they happened.
type Recorder struct {
	mu     sync.Mutex
	events []string
	// Outcomes are the requests' ends, in order.
	outcomes []observe.Outcome
}

var _ observe.Observer = (*Recorder)(nil)

// Begin implements observe.Observer.
func (r *Recorder) Begin(ctx context.Context, req *observe.Request) (context.Context, observe.Run) {
	r.add("begin %s %s", req.Source, req.Route)
	return ctx, run{r}
}

func (r *Recorder) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf(format, args...))
}

// Events returns the events so far.
func (r *Recorder) Events() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

// Outcomes returns the requests' outcomes so far.
func (r *Recorder) Outcomes() []observe.Outcome {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]observe.Outcome(nil), r.outcomes...)
}

type run struct{ r *Recorder }

func (x run) Routed(agent, command string, loaded bool) {
	x.r.add("routed %s/%s loaded=%v", agent, command, loaded)
}

func (x run) Phase(ctx context.Context, name string) (context.Context, func(error)) {
	x.r.add("phase %s", name)
	return ctx, func(err error) { x.r.add("phase %s end err=%v", name, err) }
}

func (x run) Upstream(ctx context.Context, u observe.Upstream) (context.Context, func(observe.UpstreamResult)) {
	x.r.add("upstream %s stream=%v messages=%d", u.Model, u.Stream, u.Messages)
	return ctx, func(res observe.UpstreamResult) {
		x.r.add("upstream end model=%s status=%d attempts=%d chunks=%d in=%d out=%d estimated=%v finish=%s code=%s",
			res.Model, res.Status, res.Attempts, res.Chunks, res.Usage.In, res.Usage.Out, res.Usage.Estimated, res.FinishReason, res.Code)
	}
}

func (x run) Step(ctx context.Context, s observe.Step) (context.Context, func(observe.StepResult)) {
	x.r.add("step %s kind=%s", s.ID, s.Kind)
	return ctx, func(res observe.StepResult) { x.r.add("step %s end %s code=%s", s.ID, res.Status, res.Code) }
}

func (x run) Tool(ctx context.Context, t observe.Tool) (context.Context, func(observe.ToolResult)) {
	x.r.add("tool %s runtime=%s", t.Name, t.Runtime)
	return ctx, func(res observe.ToolResult) { x.r.add("tool %s end %s code=%s", t.Name, res.Status, res.Code) }
}

func (x run) Git(ctx context.Context, op, repo string) (context.Context, func(error)) {
	x.r.add("git %s %s", op, repo)
	return ctx, func(err error) { x.r.add("git %s end err=%v", op, err) }
}

func (x run) Handoff(ctx context.Context, h observe.Handoff) (context.Context, func(error)) {
	x.r.add("handoff %s to=%s", h.Type, h.To)
	return ctx, func(err error) { x.r.add("handoff %s end err=%v", h.Type, err) }
}

func (x run) Paused(kind string) { x.r.add("paused %s", kind) }
func (x run) Failed(code string) { x.r.add("failed %s", code) }

func (x run) Inject(context.Context, http.Header) {}

func (x run) End(o observe.Outcome) {
	x.r.add("end %s code=%s status=%d", o.Result, o.Code, o.Status)
	x.r.mu.Lock()
	x.r.outcomes = append(x.r.outcomes, o)
	x.r.mu.Unlock()
}

// Injector is an observe.Observer whose runs inject Traceparent: Value
// into outgoing requests, as a tracer would, and watch nothing else.
type Injector struct{ Value string }

var _ observe.Observer = Injector{}

// Begin implements observe.Observer.
func (i Injector) Begin(ctx context.Context, _ *observe.Request) (context.Context, observe.Run) {
	return ctx, injectorRun{value: i.Value}
}

type injectorRun struct {
	observe.Nop
	value string
}

func (r injectorRun) Inject(_ context.Context, h http.Header) { h.Set("Traceparent", r.value) }

// Watched returns ctx watched by obs, as the server's requests are, for
// tests of code that reports to the Watch in its context.
func Watched(ctx context.Context, obs ...observe.Observer) context.Context {
	ctx, _ = observe.Observers(obs).Begin(ctx, &observe.Request{Source: observe.SourceInternal})
	return ctx
}
