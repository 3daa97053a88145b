package runner

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/suggest"
)

// compiledAction is an action spec with the handlers of its feedback.
type compiledAction struct {
	// key names the action within its command, for feedback routing:
	// "actions.0", "steps.review", "actions.0.onAccept.steps.tree".
	key      string
	kind     string
	spec     *tmpl.Value
	handlers map[string]*compiledHandler
}

// compiledHandler runs on feedback: a command of the same agent, or a plan.
type compiledHandler struct {
	pos     agent.Position
	command string
	plan    *compiledPlan
}

// handlerKeys are the handlers each action kind may declare.
var handlerKeys = map[string][]string{
	actions.KindConfirm: {"onAccept", "onDismiss"},
	actions.KindTree:    {"onExpand", "onClick"},
}

// compileAction compiles an action spec written in wire shape (action,
// data) plus handlers, and checks its static shape.
func (c *compiler) compileAction(where, key string, val *agent.Value) *compiledAction {
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
	ca := &compiledAction{key: key, spec: spec, handlers: map[string]*compiledHandler{}}
	if !c.checkActionShape(where, val.Pos, ca) {
		return nil
	}
	for i, e := range entries {
		if j, ok := last[e.Key]; ok && j == i {
			c.compileHandler(where, ca, e)
		}
	}
	c.cmd.actionsByKey[key] = ca
	return ca
}

// checkActionShape parses the spec as written (templates as their text,
// references left out) and validates it when it has no references.
func (c *compiler) checkActionShape(where string, pos agent.Position, ca *compiledAction) bool {
	raw, err := json.Marshal(ca.spec.Literal())
	if err != nil {
		c.errorf(pos, "%s: %v", where, err)
		return false
	}
	a, err := actions.Parse(raw)
	if err == nil && !ca.spec.HasRefs() {
		err = a.Validate()
	}
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			c.errorf(pos, "%s: %s", where, line)
		}
		return false
	}
	ca.kind = a.Kind
	return true
}

func (c *compiler) compileHandler(where string, ca *compiledAction, e agent.Entry) {
	key, pos := e.Key, e.KeyPos
	if !slices.Contains(handlerKeys[ca.kind], key) {
		c.errorf(pos, "%s: unknown field %q%s (a %s action takes %s)", where, key,
			suggest.DidYouMean(key, handlerKeys[ca.kind]), ca.kind, strings.Join(handlerKeys[ca.kind], " and "))
		return
	}
	var h agent.Handler
	nd := &agent.NodeDecoder{File: c.file, Diags: c.diags, Kinds: c.kinds}
	nd.DecodeValue(e.Value, &h, where+"."+key)
	ch := &compiledHandler{pos: pos, command: h.Command}
	hwhere := where + "." + key
	switch {
	case h.Command != "" && len(h.Steps) > 0:
		c.errorf(pos, "%s: a handler is a command or steps, not both", hwhere)
		return
	case h.Command != "":
		name := h.Command
		c.later(func(a *Agent) {
			if _, ok := a.commands[name]; !ok {
				c.errorf(pos, "%s: no command %q in this agent%s", hwhere, name, suggest.DidYouMean(name, a.CommandNames()))
			}
		})
	case len(h.Steps) > 0:
		ch.plan = c.compilePlan(hwhere, ca.key+"."+key, h.Steps, 0, pos)
	default:
		c.errorf(pos, "%s: a handler needs a command or steps", hwhere)
		return
	}
	c.warnNoFeedback(hwhere, pos, ca, key)
	ca.handlers[key] = ch
}

// warnNoFeedback warns when the plugin would never send the feedback a
// handler waits for: a confirm with a command or prompt starts a normal
// request instead.
func (c *compiler) warnNoFeedback(where string, pos agent.Position, ca *compiledAction, handler string) {
	if ca.kind != actions.KindConfirm {
		return
	}
	raw, _ := json.Marshal(ca.spec.Literal())
	a, err := actions.Parse(raw)
	if err == nil && a.Confirm != nil && (a.Confirm.Command != "" || a.Confirm.Prompt != "") {
		c.warnf(pos, "%s: the confirm has a command or prompt, so clicking it starts a normal request and %s never runs", where, handler)
	}
}

// actionClaims are the claims of an action the run's command sends for
// step, as part of run runID: the request's endpoint agent, with the run's
// own agent in Data when it is another one, so that feedback reaches it.
func (run *Run) actionClaims(step, kind, runID string) actions.Claims {
	c := actions.Claims{Agent: run.endpoint, Command: run.cmd.def.Name, Step: step, Kind: kind, Run: runID}
	if a := run.agent.Name(); a != c.Agent {
		c.Data = map[string]string{"agent": a}
	}
	return c
}

// emitAction renders an action, signs its state and sends it.
func (run *Run) emitAction(em emit.Emitter, ca *compiledAction, env *tmpl.Env) (*actions.Action, error) {
	a, err := tmpl.RenderAction(ca.spec, env)
	if err != nil {
		return nil, apierr.New(apierr.CodeActionInvalid, fmt.Sprintf("action %s of command %q is invalid after rendering: %v", ca.key, run.cmd.def.Name, err)).Wrap(err)
	}
	claims := run.actionClaims(ca.key, a.Kind, run.runID())
	if a.Tree != nil {
		claims.TreeID = a.Tree.TreeID
		if fb := run.feedback; fb != nil && fb.Kind == actions.KindTree && fb.TreeID == a.Tree.TreeID && len(ca.handlers) == 0 {
			// A batch of children answering an expand extends the tree that
			// asked for it: feedback on its nodes goes to that tree's handlers.
			claims.Command, claims.Step, claims.Run = fb.Command, fb.Step, fb.Run
		}
	}
	if a.State, err = run.cfg.Signer.Sign(claims); err != nil {
		return nil, apierr.Internal(fmt.Errorf("signing action state: %w", err))
	}
	run.actionsSent.Store(true)
	if err := em.Action(a); err != nil {
		return nil, apierr.Canceled(err)
	}
	return a, nil
}
