package program

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/internal/suggest"
	"github.com/agentgw/agentgw/plan"
)

// Plan is a list of steps compiled for the engine.
type Plan struct {
	// DAG is the plan as the engine runs it.
	DAG *plan.Plan
	// Steps are the steps in definition order, as DAG numbers them.
	Steps []*Step
	// Timeout bounds the whole plan; 0 means no bound of its own.
	Timeout time.Duration
}

// Step is one step: its definition, its kind and its inputs that
// are not references (templates or literal values).
type Step struct {
	// Def is the step's definition.
	Def *agent.Step
	// Kind is the compiled kind that runs it; nil when it did not compile.
	Kind stepkind.Step
	// With are its inputs that render at run time, by name.
	With map[string]*tmpl.Value
}

// compilePlan compiles steps; keyPrefix names them for action routing
// ("steps", or "actions.0.onAccept.steps" for a handler's).
func (c *compiler) compilePlan(where, keyPrefix string, defs []*agent.Step, timeout time.Duration, pos agent.Position) *Plan {
	cp := &Plan{Timeout: timeout}
	var nodes []plan.Node
	for i, sd := range defs {
		if sd == nil {
			continue
		}
		swhere := fmt.Sprintf("%s: step %q", where, sd.ID)
		if sd.ID == "" {
			swhere = fmt.Sprintf("%s: steps[%d]", where, i)
		}
		cs := &Step{Def: sd, With: map[string]*tmpl.Value{}}
		node := c.compileNode(swhere, sd, cs)
		cs.Kind = c.compileKind(swhere, keyPrefix, sd)
		// A step waits for the steps it reads, wherever it reads them.
		for _, id := range stepDeps(cs.Kind, cs.With) {
			if id != sd.ID && !slices.Contains(node.DependsOn, id) {
				node.DependsOn = append(slices.Clone(node.DependsOn), id)
			}
		}
		cp.Steps = append(cp.Steps, cs)
		nodes = append(nodes, node)
	}
	plan, errs := plan.NewPlan(nodes)
	for _, e := range errs {
		if e.Step < 0 || e.Step >= len(cp.Steps) {
			c.errorf(pos, "%s: %s", where, e.Msg)
			continue
		}
		sd := cp.Steps[e.Step].Def
		c.errorf(sd.Pos, "%s: step %q: %s: %s", where, sd.ID, e.Field, e.Msg)
	}
	cp.DAG = plan
	return cp
}

// compileNode builds the engine's view of a step: dependencies, condition,
// reference inputs, output, timeout, retry and error policy.
func (c *compiler) compileNode(where string, sd *agent.Step, cs *Step) plan.Node {
	n := plan.Node{ID: sd.ID, DependsOn: sd.DependsOn, Timeout: sd.Timeout, Refs: map[string]*plan.Ref{}}
	if sd.When != "" {
		cond, err := plan.CompileCondition(sd.When)
		if err != nil {
			c.errorf(sd.Pos, "%s: when: %v", where, err)
		}
		n.When = cond
	}
	if sd.Output != "" {
		out, err := plan.ParseOutput(sd.Output)
		if err != nil {
			c.errorf(sd.Pos, "%s: output: %v", where, err)
		}
		n.Output = out
	}
	if sd.Retry != nil {
		if sd.Retry.Limit < 0 {
			c.errorf(sd.Pos, "%s: retry.limit must not be negative", where)
		}
		n.Retry = plan.Retry{Limit: sd.Retry.Limit, Backoff: sd.Retry.Backoff}
	}
	switch sd.OnError {
	case "", "fail", "continue":
		n.OnError = plan.OnError(sd.OnError)
		if sd.OnError == "fail" && n.Output != nil && n.Output.Branch() {
			// The failure is written, but onError fail stops the plan: no step reads it.
			c.warnf(sd.Pos, "%s: output %q has a failure branch (%s) that no step can reach: onError: fail stops the plan when the step fails; drop onError to go on into the branch",
				where, sd.Output, n.Output.Paths()[1])
		}
	default:
		c.errorf(sd.Pos, "%s: onError %q must be fail or continue%s", where, sd.OnError, suggest.DidYouMean(sd.OnError, []string{"fail", "continue"}))
	}
	if sd.With != nil {
		c.compileWith(where, sd.With, &n, cs)
	}
	return n
}

// compileWith splits a step's inputs: references go to the engine, which
// resolves them (and waits for gates); the rest render at run time.
func (c *compiler) compileWith(where string, with *agent.Value, n *plan.Node, cs *Step) {
	if with.Kind() != agent.ValueMapping {
		c.errorf(with.Pos, "%s: with: expected a mapping of input names to values", where)
		return
	}
	for _, e := range with.Entries() {
		name, val := e.Key, e.Value
		c.checkRefLike(where+": with."+name, val)
		if s, ok := val.Scalar(); ok && plan.IsRef(s) {
			ref, err := plan.ParseRef(s)
			if err != nil {
				c.errorf(val.Pos, "%s: with.%s: %v", where, name, err)
				continue
			}
			n.Refs[name] = ref
			continue
		}
		cs.With[name] = tmpl.CompileValue(where+": with."+name, val, c.diags)
	}
}

var refLike = regexp.MustCompile(`^\s*[$†]\{?([A-Za-z_][A-Za-z0-9_]*)\.`)

// refRoots are the roots references may start with.
var refRoots = []string{plan.RootState, plan.RootSteps, plan.RootDependencies, plan.RootContext, plan.RootInput, plan.RootHandoff}

// checkRefLike warns about a string that looks like a reference but names
// no root, such as "$stat.x": it is taken literally.
func (c *compiler) checkRefLike(where string, v *agent.Value) {
	s, ok := v.Scalar()
	if !ok || plan.IsRef(s) {
		return
	}
	if m := refLike.FindStringSubmatch(s); m != nil && !slices.Contains(refRoots, m[1]) {
		c.warnf(v.Pos,
			"%s: %q looks like a reference, but %q is not a root (%s)%s; it is used as literal text",
			where, s, m[1], strings.Join(refRoots, ", "), suggest.DidYouMean(m[1], refRoots))
	}
}

// compileKind compiles the one kind a step has, with the kind registered
// under its key; keyPrefix is its plan's (see compilePlan).
func (c *compiler) compileKind(where, keyPrefix string, sd *agent.Step) stepkind.Step {
	var kinds []string
	var k stepkind.Step
	for _, sk := range sd.Kinds {
		kinds = append(kinds, sk.Name)
		kind, _ := c.kinds.Kind(sk.Name)
		k = kind.Compile(&stepCompiler{c: c, where: where, keyPrefix: keyPrefix, sd: sd}, sk.Config)
	}
	switch len(kinds) {
	case 0:
		c.errorf(sd.Pos, "%s: a step needs one kind: %s", where, orList(c.kinds.KindNames()))
	case 1:
	default:
		c.errorf(sd.Pos, "%s: a step has one kind, this one has %s", where, strings.Join(kinds, " and "))
	}
	return k
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// kindName is the step's kind as observers see it.
func (cs *Step) KindName() string {
	if len(cs.Def.Kinds) == 0 {
		return ""
	}
	return cs.Def.Kinds[0].Name
}
