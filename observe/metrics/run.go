package metrics

import (
	"context"
	"errors"
	"sync"

	"github.com/agentgw/agentgw/observe"
)

// codeStoreUnavailable is the error code of a failing store
// (apierr.CodeStoreUnavailable; not imported, to keep this package's
// dependencies to the seam).
const codeStoreUnavailable = "STORE_UNAVAILABLE"

// defaultCommand is the command of a request that names none.
const defaultCommand = "default"

// run is one request as the metrics see it.
type run struct {
	observe.Nop
	m             *Metrics
	source, route string

	mu sync.Mutex
	// routed is set by the first Routed; agent and command are label
	// values.
	routed         bool
	agent, command string
	// stream is set when the request counts in agentgw_open_streams.
	stream bool
	// storeFailed is set when an error frame said STORE_UNAVAILABLE.
	storeFailed bool
}

// Routed implements observe.Run. The last call counts: the server names
// the agent first, before the command is known (so that a request refused
// then is counted under its agent), then the agent and the command that
// run.
func (r *run) Routed(agent, command string, loaded bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if command == "" {
		command = defaultCommand // what a request without one runs
	}
	prev := r.agent
	if loaded {
		r.agent, r.command = r.m.label("agent", agent), r.m.label("command", command)
	} else {
		r.agent, r.command = RequestDefined, RequestDefined
	}
	if r.source != observe.SourceHTTP {
		r.routed = true
		return
	}
	switch {
	case !r.routed:
		r.stream = true
		r.m.openSeries.get(r.agent).Inc()
	case prev != r.agent:
		r.m.openSeries.get(prev).Dec()
		r.m.openSeries.get(r.agent).Inc()
	}
	r.routed = true
}

// agentLabel is the agent's label value, "" before Routed.
func (r *run) agentLabel() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.agent
}

// Upstream implements observe.Run.
func (r *run) Upstream(ctx context.Context, u observe.Upstream) (context.Context, func(observe.UpstreamResult)) {
	start := r.m.now()
	return ctx, func(res observe.UpstreamResult) {
		m := r.m
		model := res.Model
		if model == "" {
			model = u.Model
		}
		model = m.label("model", model)
		m.upstreamSeries.get(upstreamKey{model, res.Status, m.label("code", res.Code)}).Inc()
		ms := m.modelSeries.get(model)
		ms.retries.Add(float64(max(res.Attempts-1, 0)))
		if res.FirstByte > 0 {
			m.upFirstByteSeries.get(model).Observe(res.FirstByte.Seconds())
		}
		ms.duration.Observe(m.now().Sub(start).Seconds())
		if res.Usage.In > 0 || res.Usage.Out > 0 {
			ts := m.tokensSeries.get(tokensKey{model, r.agentLabel(), res.Usage.Estimated})
			ts.in.Add(float64(res.Usage.In))
			ts.out.Add(float64(res.Usage.Out))
		}
	}
}

// Step implements observe.Run.
func (r *run) Step(ctx context.Context, s observe.Step) (context.Context, func(observe.StepResult)) {
	start := r.m.now()
	return ctx, func(res observe.StepResult) {
		m := r.m
		kind := m.label("kind", s.Kind)
		m.steps.WithLabelValues(kind, m.label("status", res.Status)).Inc()
		m.stepDuration.WithLabelValues(kind).Observe(m.now().Sub(start).Seconds())
	}
}

// Tool implements observe.Run.
func (r *run) Tool(ctx context.Context, t observe.Tool) (context.Context, func(observe.ToolResult)) {
	start := r.m.now()
	return ctx, func(res observe.ToolResult) {
		m := r.m
		tool := m.label("tool", t.Name)
		m.toolCalls.WithLabelValues(tool, m.label("status", res.Status)).Inc()
		m.toolDuration.WithLabelValues(tool).Observe(m.now().Sub(start).Seconds())
	}
}

// Git implements observe.Run.
func (r *run) Git(ctx context.Context, op, _ string) (context.Context, func(error)) {
	return ctx, func(err error) {
		r.m.gitOps.WithLabelValues(r.m.label("op", op), result(err)).Inc()
	}
}

// Handoff implements observe.Run.
func (r *run) Handoff(ctx context.Context, h observe.Handoff) (context.Context, func(error)) {
	return ctx, func(err error) {
		res := result(err)
		if errors.Is(err, observe.ErrHandoffLimit) {
			res = "limit"
		}
		r.m.handoffs.WithLabelValues(r.m.label("type", h.Type), res).Inc()
	}
}

// Paused implements observe.Run.
func (r *run) Paused(kind string) {
	r.m.pauses.WithLabelValues(r.m.label("kind", kind)).Inc()
}

// Failed implements observe.Run.
func (r *run) Failed(code string) {
	r.m.streamErrors.WithLabelValues(r.m.label("code", code)).Inc()
	if code == codeStoreUnavailable {
		r.mu.Lock()
		r.storeFailed = true
		r.mu.Unlock()
	}
}

// End implements observe.Run.
func (r *run) End(o observe.Outcome) {
	m := r.m
	r.mu.Lock()
	routed, agent, command, stream, storeFailed := r.routed, r.agent, r.command, r.stream, r.storeFailed
	r.mu.Unlock()
	m.requestSeries.get(requestKey{r.source, r.route, agent, command, m.label("outcome", o.Result), m.label("code", o.Code)}).Inc()
	if routed {
		if o.TTFB > 0 {
			m.firstByteSeries.get([2]string{agent, command}).Observe(o.TTFB.Seconds())
		}
		m.durationSeries.get([2]string{agent, command}).Observe(o.Duration.Seconds())
	}
	if stream {
		m.openSeries.get(agent).Dec()
	}
	if storeFailed || o.Code == codeStoreUnavailable {
		m.storeErrors.WithLabelValues("request").Inc()
	}
}

// result is an operation's result label: ok or error.
func result(err error) string {
	if err != nil {
		return "error"
	}
	return "ok"
}
