package plan

import (
	"fmt"
	"slices"
	"sort"
	"time"
)

// OnError says what a FAILED or TIMEOUT step does to its plan.
type OnError string

// The onError values. Unset (""), a step stops the plan when it fails unless its Output is a
// success || failure branch (seed 002): the failure is then written to the failure path and the plan
// goes on into it, as with continue. Set to fail, the plan stops even then.
const (
	OnErrorFail     OnError = "fail"     // stop the plan: cancel running steps, skip the rest
	OnErrorContinue OnError = "continue" // record the failure and go on; dependents still run
)

// continues reports whether a FAILED or TIMEOUT step lets its plan go on: onError continue, or onError
// unset and the failure written to the output's failure branch (branched).
func (n *Node) continues(branched bool) bool {
	return n.OnError == OnErrorContinue || n.OnError == "" && branched
}

// Retry says how often a failed attempt is retried: Limit extra attempts (so 1+Limit in all), waiting
// Backoff*2^(n-1) before retry n, capped at MaxBackoff.
type Retry struct {
	Limit   int
	Backoff time.Duration
}

// MaxBackoff caps the wait between two attempts.
const MaxBackoff = 30 * time.Second

// delay returns the wait before retry n (1-based).
func (r Retry) delay(n int) time.Duration {
	d := r.Backoff
	for i := 1; i < n && d < MaxBackoff; i++ {
		d *= 2
	}
	return min(d, MaxBackoff)
}

// Node is one step of a plan as the engine sees it: the agent package parses the YAML step, keeps the
// kind and its settings, and hands the engine these scheduling facts.
type Node struct {
	ID        string          // unique in the plan; a path segment ([A-Za-z_][A-Za-z0-9_-]* or decimal)
	DependsOn []string        // explicit dependencies (the seed's dependencies)
	When      *Condition      // nil: always run (the seed's condition)
	Refs      map[string]*Ref // the step's `with` inputs that are references, by input name
	Output    *Output         // nil: the result is not written to the state
	Timeout   time.Duration   // per attempt; 0: none
	Retry     Retry           // retries of failed or timed-out attempts
	OnError   OnError         // "" means fail, or continue for an Output with a failure branch
}

// PlanError is one problem found in a plan.
type PlanError struct {
	Step  int    // index into the nodes; -1 for the plan as a whole
	Field string // "steps" (plan), "id", "dependsOn", "when", "with.<name>", "timeout", "retry.limit", "retry.backoff", "onError"
	Msg   string
}

// Error renders "step 2 (dependsOn): unknown step \"fetch\"".
func (e *PlanError) Error() string {
	if e.Step < 0 {
		return fmt.Sprintf("plan: %s", e.Msg)
	}
	return fmt.Sprintf("step %d (%s): %s", e.Step, e.Field, e.Msg)
}

// Plan is a validated set of steps with their dependency graph. It is immutable and may be Run many times,
// concurrently.
type Plan struct {
	nodes []Node
	index map[string]int // id -> node index
	deps  [][]int        // explicit + implicit, sorted, without repeats
	gates [][]string     // the names of each step's gate Refs, sorted
}

// Len returns the number of steps.
func (p *Plan) Len() int { return len(p.nodes) }

// Node returns step i as given to NewPlan.
func (p *Plan) Node(i int) Node { return p.nodes[i] }

// Deps returns the indexes of the steps step i depends on, explicitly (DependsOn) or implicitly (its Refs
// or When name steps.X or dependencies.X), ascending.
func (p *Plan) Deps(i int) []int { return slices.Clone(p.deps[i]) }

// NewPlan validates the nodes and builds the plan. It reports every problem it finds: no nodes at all
// (Step -1); an empty, invalid or
// duplicate id; an unknown dependsOn id (with a "did you mean"); a reference or condition naming an
// unknown step; a step depending on itself; negative durations or retry limits; an unknown onError;
// dependency cycles, each named as "a -> b -> a" (a depends on b, b on a). The plan is nil when there are
// problems.
func NewPlan(nodes []Node) (*Plan, []*PlanError) {
	p := &Plan{
		nodes: slices.Clone(nodes), index: map[string]int{},
		deps: make([][]int, len(nodes)), gates: make([][]string, len(nodes)),
	}
	var errs []*PlanError
	add := func(step int, field, format string, args ...any) {
		errs = append(errs, &PlanError{Step: step, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if len(nodes) == 0 {
		add(-1, "steps", "no steps")
	}
	p.indexIDs(add)
	for i := range p.nodes {
		p.checkSettings(i, add)
		p.deps[i] = p.collectDeps(i, add)
	}
	for _, cyc := range p.cycles() {
		add(cyc[0], "dependsOn", "dependency cycle: %s", p.cycleString(cyc))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return p, nil
}

// addFunc records a PlanError.
type addFunc func(step int, field, format string, args ...any)

// indexIDs checks the ids and fills p.index.
func (p *Plan) indexIDs(add addFunc) {
	for i, n := range p.nodes {
		switch first, dup := p.index[n.ID]; {
		case n.ID == "":
			add(i, "id", "empty id")
		case checkSegment(n.ID) != nil:
			add(i, "id", "id %q: use letters, digits, _ and - (starting with a letter or _), or a number", n.ID)
		case dup:
			add(i, "id", "duplicate id %q (first used by step %d)", n.ID, first)
		default:
			p.index[n.ID] = i
		}
	}
}

// checkSettings checks the scalar settings of step i.
func (p *Plan) checkSettings(i int, add addFunc) {
	n := p.nodes[i]
	if n.Timeout < 0 {
		add(i, "timeout", "negative timeout %v", n.Timeout)
	}
	if n.Retry.Limit < 0 {
		add(i, "retry.limit", "negative retry limit %d", n.Retry.Limit)
	}
	if n.Retry.Backoff < 0 {
		add(i, "retry.backoff", "negative backoff %v", n.Retry.Backoff)
	}
	if n.OnError != "" && n.OnError != OnErrorFail && n.OnError != OnErrorContinue {
		add(i, "onError", "unknown onError %q (want fail or continue)", n.OnError)
	}
}

// collectDeps returns step i's explicit and implicit dependencies, reporting unknown and self references.
func (p *Plan) collectDeps(i int, add addFunc) []int {
	var deps []int
	use := func(field, id, what string) {
		j, ok := p.index[id]
		switch {
		case !ok:
			add(i, field, "%s unknown step %q%s", what, id, p.suggest(id))
		case j == i:
			add(i, field, "step %q depends on itself", id)
		default:
			deps = append(deps, j)
		}
	}
	for _, id := range p.nodes[i].DependsOn {
		use("dependsOn", id, "depends on")
	}
	if c := p.nodes[i].When; c != nil {
		for _, id := range c.StepIDs() {
			use("when", id, "names")
		}
	}
	for _, name := range sortedKeys(p.nodes[i].Refs) {
		ref := p.nodes[i].Refs[name]
		if ref == nil {
			add(i, "with."+name, "nil reference")
			continue
		}
		for _, id := range ref.StepIDs() {
			use("with."+name, id, "references")
		}
		if ref.Gate() {
			p.gates[i] = append(p.gates[i], name)
		}
	}
	slices.Sort(deps)
	return slices.Compact(deps)
}

// sortedKeys returns a map's keys in order, so that errors come out in a stable order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
