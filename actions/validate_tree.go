package actions

import (
	"maps"
	"slices"
	"strings"
)

// nodeIDs checks the node ids and returns the index of each id's first node.
func (w *walker) nodeIDs(t *Tree) map[string]int {
	ids := make(map[string]int, len(t.Nodes))
	for i, n := range t.Nodes {
		p := index("data.nodes", i) + ".id"
		if n.ID == "" {
			w.problem(p, "must not be empty")
			continue
		}
		if j, dup := ids[n.ID]; dup {
			w.problem(p, "duplicate id %q (also data.nodes[%d])", n.ID, j)
			continue
		}
		ids[n.ID] = i
	}
	if j, ok := ids[t.RootPID]; ok {
		w.problem("data.rootPId", "%q is also the id of data.nodes[%d]; the top-level nodes' parent must not be a node", t.RootPID, j)
	}
	return ids
}

// parents checks that every pId is rootPId or another node's id.
func (w *walker) parents(t *Tree, ids map[string]int) {
	for i, n := range t.Nodes {
		if n.PID == t.RootPID {
			continue
		}
		p := index("data.nodes", i) + ".pId"
		j, ok := ids[n.PID]
		switch {
		case !ok:
			w.problem(p, "%q is neither rootPId (%q) nor the id of another node", n.PID, t.RootPID)
		case j == i:
			w.problem(p, "is the node's own id")
		}
	}
}

// cycles reports the nodes whose chain of parents loops instead of reaching
// rootPId. Chains that end at an unknown pId are reported by parents.
func (w *walker) cycles(t *Tree, ids map[string]int) {
	const (
		unvisited = iota
		visiting
		rooted
		looped
	)
	mark := make([]int8, len(t.Nodes))
	for i := range t.Nodes {
		var path []int
		result := int8(rooted)
		for j := i; ; {
			if mark[j] == visiting {
				result = looped
				break
			}
			if mark[j] != unvisited {
				result = mark[j]
				break
			}
			mark[j] = visiting
			path = append(path, j)
			k, ok := ids[t.Nodes[j].PID]
			if t.Nodes[j].PID == t.RootPID || !ok || k == j {
				break
			}
			j = k
		}
		for _, j := range path {
			mark[j] = result
		}
	}
	for i, m := range mark {
		if m == looped {
			w.problem(index("data.nodes", i)+".pId", "node %q is not connected to rootPId: its parents form a cycle", t.Nodes[i].ID)
		}
	}
}

// extras checks the Extra properties of every node.
func (w *walker) extras(t *Tree) {
	for i, n := range t.Nodes {
		for _, k := range slices.Sorted(maps.Keys(n.Extra)) {
			p := field(index("data.nodes", i), k)
			if std, ok := reservedLike(k); ok {
				if std == k {
					w.problem(p, "extra property repeats the standard field %q", std)
				} else {
					w.problem(p, "extra property reads as a misspelling of the standard field %q; rename it", std)
				}
			}
			if _, err := marshal(n.Extra[k]); err != nil {
				w.problem(p, "extra property cannot be written as JSON: %v", err)
			}
		}
	}
}

// nodeActions checks the tree's nodeActions against its nodes.
func (w *walker) nodeActions(t *Tree) {
	types := make(map[string]bool)
	var typeList []string
	for _, n := range t.Nodes {
		if !types[n.Type] {
			types[n.Type] = true
			typeList = append(typeList, n.Type)
		}
	}
	type gesture struct{ nodeType, action string }
	seen := make(map[gesture]int)
	for i, na := range t.NodeActions {
		p := index("data.nodeActions", i)
		if !types[na.NodeType] {
			w.problem(p+".nodeType", "no node has type %q%s", na.NodeType, didYouMean(na.NodeType, typeList))
		}
		if na.NodeAction != NodeExpand && na.NodeAction != NodeClick {
			w.problem(p+".nodeAction", "must be %q or %q, got %q", NodeExpand, NodeClick, na.NodeAction)
		}
		if set := targets(na); len(set) > 1 {
			w.problem(p, "sets %s; set at most one of command, prompt and promptByNodeProperty", strings.Join(set, " and "))
		}
		g := gesture{na.NodeType, na.NodeAction}
		if j, dup := seen[g]; dup {
			w.problem(p, "repeats data.nodeActions[%d] (nodeType %q, nodeAction %q)", j, na.NodeType, na.NodeAction)
		} else {
			seen[g] = i
		}
		if na.PromptByNodeProperty != "" {
			w.nodeProperty(t, p+".promptByNodeProperty", na)
		}
	}
}

// targets lists which of command, prompt and promptByNodeProperty na sets.
func targets(na NodeAction) []string {
	var set []string
	for _, t := range []struct{ name, value string }{
		{"command", na.Command}, {"prompt", na.Prompt}, {"promptByNodeProperty", na.PromptByNodeProperty},
	} {
		if t.value != "" {
			set = append(set, t.name)
		}
	}
	return set
}

// nodeProperty checks that na's promptByNodeProperty names a text property
// of every node of its type.
func (w *walker) nodeProperty(t *Tree, path string, na NodeAction) {
	prop := na.PromptByNodeProperty
	switch prop {
	case "id", "pId", "type", "name", "description":
		return
	case "labels":
		w.problem(path, "%q is a list, not a text that can be a prompt", prop)
		return
	}
	for i, n := range t.Nodes {
		if n.Type != na.NodeType {
			continue
		}
		if _, ok := n.Extra[prop]; !ok {
			known := append(slices.Clone(nodeFields[:5]), slices.Sorted(maps.Keys(n.Extra))...)
			w.problem(path, "node %q (data.nodes[%d]) of type %q has no property %q%s",
				n.ID, i, n.Type, prop, didYouMean(prop, known))
			return
		}
	}
}
