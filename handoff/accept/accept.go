package accept

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/internal/suggest"
)

// Name is the part's name: the key of an agent's Set (program.Agent.Part).
const Name = "handoffs"

// Accepted is a type of hand-off message an agent accepts: the command
// that runs for it, and the validator of the message with the agent's own
// data schema, if it declared one.
type Accepted struct {
	Type      handoff.Type
	Command   string
	Validator *handoff.Validator
}

// Set is the hand-off messages an agent accepts, by type: the part's
// result.
type Set map[handoff.Type]*Accepted

// Types lists the types of s, sorted.
func (s Set) Types() []handoff.Type {
	out := make([]handoff.Type, 0, len(s))
	for t := range s {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// Summarize implements program.Summarizer: the types the agent accepts, in
// order, and the command each runs.
func (s Set) Summarize(sum *agent.Summary) {
	for _, t := range s.Types() {
		sum.Handoffs = append(sum.Handoffs, agent.HandoffSummary{Type: string(t), Command: s[t].Command})
	}
}

// Of returns what agent a accepts: none when it was loaded without the
// part.
func Of(a *program.Agent) Set {
	s, _ := a.Part(Name).(Set)
	return s
}

// Accepts returns how agent a takes hand-off messages of type t.
func Accepts(a *program.Agent, t handoff.Type) (*Accepted, bool) {
	acc, ok := Of(a)[t]
	return acc, ok
}

// Types lists the hand-off types agent a accepts, sorted.
func Types(a *program.Agent) []handoff.Type { return Of(a).Types() }

// Part compiles the agents' handoffs declarations, their Set kept on each
// agent; it is given to loading in program.LoadOptions.Parts.
type Part struct{}

var _ program.Part = Part{}

// Name implements program.Part.
func (Part) Name() string { return Name }

// Compile implements program.Part: it checks the agent's handoffs
// declarations: a known type, once; a command of the agent; a schema that
// compiles. Its result is a Set, nil when the agent declares none.
func (Part) Compile(c program.PartCompiler) any {
	def := c.Definition()
	if len(def.Handoffs) == 0 {
		return nil
	}
	names := make([]string, 0, len(handoff.Types()))
	for _, t := range handoff.Types() {
		names = append(names, string(t))
	}
	out := Set{}
	for _, hd := range def.Handoffs {
		if hd == nil {
			continue
		}
		t := handoff.Type(hd.Type)
		if !t.Valid() {
			c.Errorf(hd.Pos, "handoffs: %q is not a hand-off type%s (one of %s)", hd.Type, suggest.DidYouMean(hd.Type, names), strings.Join(names, ", "))
			continue
		}
		if _, dup := out[t]; dup {
			c.Errorf(hd.Pos, "handoffs: type %s is declared twice", t)
			continue
		}
		cmd := cmp.Or(hd.Command, program.DefaultCommand)
		if !c.HasCommand(cmd) {
			c.Errorf(hd.Pos, "handoffs: %s runs command %q, which agent %q does not have%s", t, cmd, def.Name, suggest.DidYouMean(cmd, c.CommandNames()))
			continue
		}
		v, err := validator(t, hd.Schema)
		if err != nil {
			c.Errorf(hd.Pos, "handoffs: %s: schema: %v", t, err)
			continue
		}
		out[t] = &Accepted{Type: t, Command: cmd, Validator: v}
	}
	return out
}

// validator is the validator of type t's messages with schema, the agent's
// own data schema, when there is one.
func validator(t handoff.Type, schema *agent.Value) (*handoff.Validator, error) {
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
