package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/internal/suggest"
)

// cycles returns one cycle per strongly connected component of more than one step, each as the step
// indexes from its lowest-numbered step along dependencies back to (not repeating) it.
func (p *Plan) cycles() [][]int {
	var out [][]int
	for _, comp := range p.components() {
		if len(comp) > 1 {
			out = append(out, p.cycleIn(comp))
		}
	}
	slices.SortFunc(out, func(a, b []int) int { return a[0] - b[0] })
	return out
}

// components returns the strongly connected components of the dependency graph (Tarjan).
func (p *Plan) components() [][]int {
	n := len(p.nodes)
	t := &tarjan{deps: p.deps, index: make([]int, n), low: make([]int, n), on: make([]bool, n)}
	for i := range t.index {
		t.index[i] = -1
	}
	for i := 0; i < n; i++ {
		if t.index[i] < 0 {
			t.visit(i)
		}
	}
	return t.comps
}

// tarjan is the state of Tarjan's algorithm.
type tarjan struct {
	deps       [][]int
	index, low []int
	on         []bool
	stack      []int
	next       int
	comps      [][]int
}

// visit is Tarjan's strongconnect. Plans are small (tens of steps), so recursion is fine.
func (t *tarjan) visit(v int) {
	t.index[v], t.low[v] = t.next, t.next
	t.next++
	t.stack = append(t.stack, v)
	t.on[v] = true
	for _, w := range t.deps[v] {
		switch {
		case t.index[w] < 0:
			t.visit(w)
			t.low[v] = min(t.low[v], t.low[w])
		case t.on[w]:
			t.low[v] = min(t.low[v], t.index[w])
		}
	}
	if t.low[v] != t.index[v] {
		return
	}
	var comp []int
	for {
		w := t.stack[len(t.stack)-1]
		t.stack = t.stack[:len(t.stack)-1]
		t.on[w] = false
		comp = append(comp, w)
		if w == v {
			break
		}
	}
	slices.Sort(comp)
	t.comps = append(t.comps, comp)
}

// cycleIn returns a shortest cycle through the component's lowest step (breadth-first inside it).
func (p *Plan) cycleIn(comp []int) []int {
	start := comp[0]
	prev := map[int]int{start: -1}
	queue := []int{start}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, w := range p.deps[v] {
			if w == start {
				return unwind(prev, v)
			}
			if _, seen := prev[w]; !seen && slices.Contains(comp, w) {
				prev[w] = v
				queue = append(queue, w)
			}
		}
	}
	return comp // unreachable for a real component
}

// unwind returns the path from the start to v recorded in prev.
func unwind(prev map[int]int, v int) []int {
	var path []int
	for ; v >= 0; v = prev[v] {
		path = append(path, v)
	}
	slices.Reverse(path)
	return path
}

// cycleString renders a cycle as "a -> b -> a".
func (p *Plan) cycleString(cyc []int) string {
	ids := make([]string, 0, len(cyc)+1)
	for _, i := range cyc {
		ids = append(ids, p.nodes[i].ID)
	}
	ids = append(ids, p.nodes[cyc[0]].ID)
	return strings.Join(ids, " -> ")
}

// suggest returns ` (did you mean "x"?)` for the known id closest to id,
// or "".
func (p *Plan) suggest(id string) string {
	var ids []string
	for _, n := range p.nodes {
		if n.ID != "" && n.ID != id {
			ids = append(ids, n.ID)
		}
	}
	if best := suggest.Closest(id, ids); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}
