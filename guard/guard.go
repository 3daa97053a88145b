// Package guard is what never leaves the building: the llm.Guard that
// every model call's request passes before it is sent (cmd/agentgw wires
// it into the upstream client). It withholds the tool results that carry
// an excluded file (package guard/exclude; the request stage withholds
// the context variables' files) and replaces each credential the prompt
// holds by a placeholder (package guard/redact, gitleaks' rules). It
// counts what it took out for the request's access log line
// (observe.Watch.Redacted, Withheld) and the metrics, never the secret.
//
// The guard is also an observe.Observer, so that every request, a
// hand-off's or a schedule's included, has the observe.Watch that names
// its agent: an agent's own patterns (contentExclusion) apply to its
// model calls. A run that calls another agent's command (a call step, an
// ask) is guarded with the policy of the request's agent.
package guard

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentgw/agentgw/guard/exclude"
	"github.com/agentgw/agentgw/guard/redact"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/observe"
)

// Config configures a Guard.
type Config struct {
	// Policies give each agent's content exclusion policy.
	Policies exclude.Policies
	// Redactor redacts credentials; nil redacts none.
	Redactor *redact.Redactor
	// Registerer, when set, gets the guard's metrics.
	Registerer prometheus.Registerer
	// Logger receives a debug line for each request changed (rule ids and
	// paths, never a secret); nil discards them.
	Logger *slog.Logger
}

// Guard is the llm.Guard of the gateway. It is safe for concurrent use.
type Guard struct {
	cfg Config
	log *slog.Logger
	m   *Metrics
}

var (
	_ llm.Guard        = (*Guard)(nil)
	_ observe.Observer = (*Guard)(nil)
)

// New returns the guard of cfg, its metrics registered on cfg.Registerer.
func New(cfg Config) (*Guard, error) {
	g := &Guard{cfg: cfg, log: cfg.Logger, m: newMetrics()}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	if cfg.Registerer != nil {
		if err := g.m.register(cfg.Registerer); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// Withheld counts n files withheld from where, for the metrics: the
// request stage's count (exclude.Stage.Withheld).
func (g *Guard) Withheld(where string, n int) { g.m.withheld.WithLabelValues(where).Add(float64(n)) }

// Begin implements observe.Observer: it watches every request (with a
// Run that does nothing), so that the Watch names the agent of each.
func (g *Guard) Begin(ctx context.Context, _ *observe.Request) (context.Context, observe.Run) {
	return ctx, observe.Nop{}
}

// Guard implements llm.Guard: the tool results of excluded files are
// withheld, then each message's credentials redacted. req itself is
// returned when nothing changes.
func (g *Guard) Guard(ctx context.Context, req *llm.ChatRequest) *llm.ChatRequest {
	w := observe.From(ctx)
	pol := g.cfg.Policies.For(w.Agent())
	if pol.Empty() && g.cfg.Redactor == nil {
		return req
	}
	c := call{g: g, pol: pol}
	var msgs []llm.Message
	for i, m := range req.Messages {
		out, changed := c.message(m)
		if !changed {
			continue
		}
		if msgs == nil {
			msgs = append([]llm.Message(nil), req.Messages...)
		}
		msgs[i] = out
	}
	if msgs == nil {
		return req
	}
	for _, r := range c.redacted {
		w.Redacted(r.Rule, r.Count)
		g.m.redactions.WithLabelValues(r.Rule).Add(float64(r.Count))
	}
	w.Withheld(len(c.withheld))
	for range c.withheld {
		g.m.withheld.WithLabelValues(exclude.WhereTool).Inc()
	}
	g.log.DebugContext(ctx, "content guard changed a model call's prompt", "redacted", c.redacted, "withheld", c.withheld)
	out := *req
	out.Messages = msgs
	return &out
}

// call is the guarding of one request.
type call struct {
	g   *Guard
	pol *exclude.Policy
	// args are the arguments of the tool calls seen so far, by call id.
	args map[string]string
	// What was taken out.
	redacted []observe.Redaction
	withheld []string
}

// message returns m as it may leave, and whether that changed it.
func (c *call) message(m llm.Message) (llm.Message, bool) {
	if m.Raw == nil {
		text := c.redact(m.Content)
		if text == m.Content {
			return m, false
		}
		m.Content = text
		return m, true
	}
	if !c.interesting(m.Raw) {
		return m, false
	}
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(m.Raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return m, false // llm refuses a raw message that is no object
	}
	changed := c.withhold(v)
	if c.g.cfg.Redactor != nil {
		nv, ch := c.redactValue(v)
		v, changed = nv.(map[string]any), changed || ch
	}
	if !changed {
		return m, false
	}
	data, err := marshal(v)
	if err != nil {
		return m, false
	}
	m.Raw = json.RawMessage(data)
	return m, true
}

// interesting reports whether a raw message may need a change: a tool
// call or result while a policy excludes files, or a credential found in
// its JSON text.
func (c *call) interesting(raw []byte) bool {
	if !c.pol.Empty() && (bytes.Contains(raw, []byte(`"tool_calls"`)) || bytes.Contains(raw, []byte(`"tool_call_id"`))) {
		return true
	}
	return c.g.cfg.Redactor != nil && len(c.g.cfg.Redactor.Find(string(raw))) > 0
}

// redact returns text with its credentials replaced, counting them.
func (c *call) redact(text string) string {
	if c.g.cfg.Redactor == nil {
		return text
	}
	out, found := c.g.cfg.Redactor.Redact(text)
	for _, f := range found {
		c.count(f.Rule)
	}
	return out
}

// count counts a credential of rule.
func (c *call) count(rule string) {
	for i := range c.redacted {
		if c.redacted[i].Rule == rule {
			c.redacted[i].Count++
			return
		}
	}
	c.redacted = append(c.redacted, observe.Redaction{Rule: rule, Count: 1})
}

// redactValue redacts every string of a decoded JSON value (not the
// object keys), returning the value and whether it changed.
func (c *call) redactValue(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		out := c.redact(x)
		return out, out != x
	case []any:
		changed := false
		for i, e := range x {
			var ch bool
			x[i], ch = c.redactValue(e)
			changed = changed || ch
		}
		return x, changed
	case map[string]any:
		changed := false
		for k, e := range x {
			var ch bool
			x[k], ch = c.redactValue(e)
			changed = changed || ch
		}
		return x, changed
	}
	return v, false
}
