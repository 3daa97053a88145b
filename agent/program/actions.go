package program

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/internal/suggest"
)

// Action is an action spec with the handlers of its feedback.
type Action struct {
	// Key names the action within its command, for feedback routing:
	// "actions.0", "steps.review", "actions.0.onAccept.steps.tree".
	Key string
	// Kind is the action's kind (confirm, tree).
	Kind string
	// Spec is the action in wire shape, its strings templates.
	Spec *tmpl.Value
	// Handlers run on its feedback, by gesture (onAccept, onExpand, ...).
	Handlers map[string]*Handler
}

// Handler runs on feedback: a command of the same agent, or a plan.
type Handler struct {
	// Pos is where the handler is defined.
	Pos agent.Position
	// Command is the command of the same agent that runs, or "".
	Command string
	// Plan is the steps that run when Command is "".
	Plan *Plan
}

// handlerKeys are the handlers each action kind may declare.
var handlerKeys = map[string][]string{
	actions.KindConfirm: {"onAccept", "onDismiss"},
	actions.KindTree:    {"onExpand", "onClick"},
}

// compileAction compiles an action spec written in wire shape (action,
// data) plus handlers, and checks its static shape.
func (c *compiler) compileAction(where, key string, val *agent.Value) *Action {
	if val.Kind() != agent.ValueMapping {
		c.errorf(val.Pos, "%s: an action is a mapping with action and data", where)
		return nil
	}
	isHandler := func(key string) bool { return strings.HasPrefix(key, "on") && key != "on" }
	entries := val.Entries()
	last := map[string]int{} // a handler key given twice counts once, as written last
	for i, e := range entries {
		if isHandler(e.Key) {
			last[e.Key] = i
		}
	}
	wire := val.Pick(func(key string) bool { return !isHandler(key) })
	before := c.diags.Errors()
	spec := tmpl.CompileValue(where, wire, c.diags)
	if c.diags.Errors() > before {
		return nil
	}
	ca := &Action{Key: key, Spec: spec, Handlers: map[string]*Handler{}}
	if !c.checkActionShape(where, val.Pos, ca) {
		return nil
	}
	for i, e := range entries {
		if j, ok := last[e.Key]; ok && j == i {
			c.compileHandler(where, ca, e)
		}
	}
	c.cmd.ActionsByKey[key] = ca
	return ca
}

// checkActionShape parses the spec as written (templates as their text,
// references left out) and validates it when it has no references.
func (c *compiler) checkActionShape(where string, pos agent.Position, ca *Action) bool {
	raw, err := json.Marshal(ca.Spec.Literal())
	if err != nil {
		c.errorf(pos, "%s: %v", where, err)
		return false
	}
	a, err := actions.Parse(raw)
	if err == nil && !ca.Spec.HasRefs() {
		err = a.Validate()
	}
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			c.errorf(pos, "%s: %s", where, line)
		}
		return false
	}
	ca.Kind = a.Kind
	return true
}

func (c *compiler) compileHandler(where string, ca *Action, e agent.Entry) {
	key, pos := e.Key, e.KeyPos
	if !slices.Contains(handlerKeys[ca.Kind], key) {
		c.errorf(pos, "%s: unknown field %q%s (a %s action takes %s)", where, key,
			suggest.DidYouMean(key, handlerKeys[ca.Kind]), ca.Kind, strings.Join(handlerKeys[ca.Kind], " and "))
		return
	}
	var h agent.Handler
	nd := &agent.NodeDecoder{File: c.file, Diags: c.diags, Kinds: c.kinds}
	nd.DecodeValue(e.Value, &h, where+"."+key)
	ch := &Handler{Pos: pos, Command: h.Command}
	hwhere := where + "." + key
	switch {
	case h.Command != "" && len(h.Steps) > 0:
		c.errorf(pos, "%s: a handler is a command or steps, not both", hwhere)
		return
	case h.Command != "":
		name := h.Command
		c.later(func(a *Agent) {
			if _, ok := a.Commands[name]; !ok {
				c.errorf(pos, "%s: no command %q in this agent%s", hwhere, name, suggest.DidYouMean(name, a.CommandNames()))
			}
		})
	case len(h.Steps) > 0:
		ch.Plan = c.compilePlan(hwhere, ca.Key+"."+key, h.Steps, 0, pos)
	default:
		c.errorf(pos, "%s: a handler needs a command or steps", hwhere)
		return
	}
	c.warnNoFeedback(hwhere, pos, ca, key)
	ca.Handlers[key] = ch
}

// warnNoFeedback warns when the plugin would never send the feedback a
// handler waits for: a confirm with a command or prompt starts a normal
// request instead.
func (c *compiler) warnNoFeedback(where string, pos agent.Position, ca *Action, handler string) {
	if ca.Kind != actions.KindConfirm {
		return
	}
	raw, _ := json.Marshal(ca.Spec.Literal())
	a, err := actions.Parse(raw)
	if err == nil && a.Confirm != nil && (a.Confirm.Command != "" || a.Confirm.Prompt != "") {
		c.warnf(pos, "%s: the confirm has a command or prompt, so clicking it starts a normal request and %s never runs", where, handler)
	}
}
