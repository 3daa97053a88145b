package runner

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/internal/suggest"
)

// Accepted is a type of hand-off message an agent accepts: the command
// that runs for it, and the validator of the message with the agent's own
// data schema, if it declared one.
type Accepted struct {
	Type      handoff.Type
	Command   string
	Validator *handoff.Validator
}

// Accepts returns how the agent takes hand-off messages of type t.
func (a *Agent) Accepts(t handoff.Type) (*Accepted, bool) {
	acc, ok := a.handoffs[t]
	return acc, ok
}

// AcceptedTypes lists the hand-off types the agent accepts, sorted.
func (a *Agent) AcceptedTypes() []handoff.Type {
	out := make([]handoff.Type, 0, len(a.handoffs))
	for t := range a.handoffs {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// compileHandoffs checks the agent's handoffs declarations: a known type,
// once; a command of the agent; a schema that compiles.
func (c *compiler) compileHandoffs(a *Agent) map[handoff.Type]*Accepted {
	if len(c.def.Handoffs) == 0 {
		return nil
	}
	names := make([]string, 0, len(handoff.Types()))
	for _, t := range handoff.Types() {
		names = append(names, string(t))
	}
	out := map[handoff.Type]*Accepted{}
	for _, hd := range c.def.Handoffs {
		if hd == nil {
			continue
		}
		t := handoff.Type(hd.Type)
		if !t.Valid() {
			c.errorf(hd.Pos, "handoffs: %q is not a hand-off type%s (one of %s)", hd.Type, suggest.DidYouMean(hd.Type, names), strings.Join(names, ", "))
			continue
		}
		if _, dup := out[t]; dup {
			c.errorf(hd.Pos, "handoffs: type %s is declared twice", t)
			continue
		}
		cmd := firstNonEmpty(hd.Command, DefaultCommand)
		if _, ok := a.commands[cmd]; !ok {
			c.errorf(hd.Pos, "handoffs: %s runs command %q, which agent %q does not have%s", t, cmd, c.def.Name, suggest.DidYouMean(cmd, a.CommandNames()))
			continue
		}
		v, err := handoffValidator(t, hd.Schema)
		if err != nil {
			c.errorf(hd.Pos, "handoffs: %s: schema: %v", t, err)
			continue
		}
		out[t] = &Accepted{Type: t, Command: cmd, Validator: v}
	}
	return out
}

// handoffValidator is the validator of type t's messages with schema, the
// agent's own data schema, when there is one.
func handoffValidator(t handoff.Type, schema *agent.Value) (*handoff.Validator, error) {
	if schema == nil {
		return handoff.NewValidator(nil)
	}
	v, err := schema.Decode()
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	return handoff.NewValidator(map[handoff.Type]json.RawMessage{t: raw})
}

// RemoteEndpoint is where a remote agent runs: an agent whose definition
// names service.endpoint and whose commands do nothing here (no reply,
// templates, steps or actions) forwards its requests and hand-off messages
// there.
func (a *Agent) RemoteEndpoint() (string, bool) {
	s := a.Def.Service
	if s == nil || s.Endpoint == "" {
		return "", false
	}
	for _, c := range a.commands {
		if c.reply != nil || c.hasPrompt() || c.plan != nil || len(c.actions) > 0 {
			return "", false
		}
	}
	return s.Endpoint, true
}
