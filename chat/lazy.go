package chat

import "maps"

// nextRound turns an answer's actions into the actions offered next. An
// answer to an expand gesture that carries the expanded tree again (the same
// treeId) is merged into the tree shown before: its nodes are added (or
// replace the nodes with the same id), its nodeActions too, and its state
// and origin become the tree's. Every other action is offered as it came.
func nextRound(acts []wireAction, origin map[string]any, picked *choice) []*offered {
	var out []*offered
	var merged *offered
	for _, a := range acts {
		if a.Action == "tree" && picked != nil && picked.expand && a.Data.TreeID == picked.from.Data.TreeID {
			if merged == nil {
				merged = picked.from.clone()
				out = append(out, merged)
			}
			merged.mergeTree(a, origin)
			continue
		}
		out = append(out, &offered{wireAction: a, origin: origin})
	}
	return out
}

// clone copies the action so that merging leaves the original alone.
func (o *offered) clone() *offered {
	c := *o
	c.Data.Nodes = append([]treeNode(nil), o.Data.Nodes...)
	c.Data.NodeActions = append([]nodeAction(nil), o.Data.NodeActions...)
	return &c
}

// mergeTree merges the tree action a, which came in the answer to origin,
// into o: a node replaces the node with its id, or is added; a nodeAction
// replaces the one for its nodeType and gesture, or is added. The latest
// state is kept: the gateway signs a tree's state for the tree, not for a
// node, and the latest expires last.
func (o *offered) mergeTree(a wireAction, origin map[string]any) {
	o.State, o.origin = a.State, origin
	index := make(map[string]int, len(o.Data.Nodes))
	for i, n := range o.Data.Nodes {
		if _, dup := index[n.id]; !dup && n.identified {
			index[n.id] = i
		}
	}
	for _, n := range a.Data.Nodes {
		if i, ok := index[n.id]; ok && n.identified {
			o.Data.Nodes[i] = n
			continue
		}
		if n.identified {
			index[n.id] = len(o.Data.Nodes)
		}
		o.Data.Nodes = append(o.Data.Nodes, n)
	}
	for _, na := range a.Data.NodeActions {
		o.mergeNodeAction(na)
	}
}

func (o *offered) mergeNodeAction(na nodeAction) {
	for i, old := range o.Data.NodeActions {
		if old.NodeType == na.NodeType && old.NodeAction == na.NodeAction {
			o.Data.NodeActions[i] = na
			return
		}
	}
	o.Data.NodeActions = append(o.Data.NodeActions, na)
}

// baseBody is body without its "action" and "toolResults": the body of a
// feedback request for an action or a tool call that body's answer
// carried, before its own "action" or "toolResults" is added.
func baseBody(body map[string]any) map[string]any {
	b := maps.Clone(body)
	delete(b, "action")
	delete(b, "toolResults")
	return b
}
