package actions

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Parse decodes an action in its wire shape {"action", "state"?, "data"},
// the data of a copilot_action frame.
//
// Decoding is strict: member names match exactly, and an unknown or
// duplicate member or a value of the wrong type is an error naming its path
// (`data.nodes[2].lable: unknown field; did you mean "labels"?`). A null
// member counts as absent. The one exception is a node: a member that is
// not a standard field goes to Node.Extra, unless it reads as a misspelling
// of a standard field (see Validate). Node.Labels, Tree.Nodes and
// Tree.NodeActions are never nil.
//
// The state may be any JSON: a string becomes State; absent, null and {}
// become an empty State; anything else is kept, compacted, as its JSON text
// with StateIsJSON set.
//
// Parse does not check the rules of Validate. Every problem found is
// reported, as an errors.Join of *ValidationError (see Problems).
func Parse(data []byte) (*Action, error) {
	if !json.Valid(data) {
		var v json.RawMessage
		err := json.Unmarshal(data, &v)
		return nil, fmt.Errorf("parsing action: invalid JSON: %w", err)
	}
	var w walker
	a := w.action(data)
	if err := w.err(); err != nil {
		return nil, err
	}
	return a, nil
}

func (w *walker) action(raw []byte) *Action {
	var kindRaw, stateRaw, dataRaw []byte
	ok := w.object("", raw, func(key string, val []byte) {
		switch key {
		case "action":
			kindRaw = val
		case "state":
			stateRaw = val
		case "data":
			dataRaw = val
		default:
			w.unknown("", key, actionFields)
		}
	})
	if !ok {
		if absent(raw) {
			w.problem("", "expected an object, got null")
		}
		return nil
	}
	a := &Action{}
	a.State, a.StateIsJSON = parseState(stateRaw)
	w.str("action", kindRaw, &a.Kind)
	switch {
	case absent(kindRaw):
		w.problem("action", "missing; want %q or %q", KindConfirm, KindTree)
	case kindOf(kindRaw) != jsonString:
	case a.Kind == KindConfirm:
		a.Confirm = w.confirm(dataRaw)
	case a.Kind == KindTree:
		a.Tree = w.tree(dataRaw)
	default:
		w.problem("action", "unknown action %q%s", a.Kind, didYouMean(a.Kind, kinds))
	}
	return a
}

// parseState is the State of a parsed action; see Parse.
func parseState(raw []byte) (string, bool) {
	switch kindOf(raw) {
	case jsonMissing, jsonNull:
		return "", false
	case jsonString:
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s, false
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil || buf.String() == "{}" {
		return "", false
	}
	return buf.String(), true
}

func (w *walker) data(raw []byte, fn func(key string, val []byte)) {
	if absent(raw) {
		w.problem("data", "missing")
		return
	}
	w.object("data", raw, fn)
}

func (w *walker) confirm(raw []byte) *Confirm {
	c := &Confirm{}
	w.data(raw, func(key string, val []byte) {
		p := field("data", key)
		switch key {
		case "title":
			w.str(p, val, &c.Title)
		case "message":
			w.str(p, val, &c.Message)
		case "command":
			w.str(p, val, &c.Command)
		case "prompt":
			w.str(p, val, &c.Prompt)
		default:
			w.unknown("data", key, confirmFields)
		}
	})
	return c
}

func (w *walker) tree(raw []byte) *Tree {
	t := &Tree{Nodes: []Node{}, NodeActions: []NodeAction{}}
	w.data(raw, func(key string, val []byte) {
		p := field("data", key)
		switch key {
		case "treeId":
			w.str(p, val, &t.TreeID)
		case "rootPId":
			w.str(p, val, &t.RootPID)
		case "nodes":
			w.array(p, val, func(i int, v []byte) {
				t.Nodes = append(t.Nodes, w.node(index(p, i), v))
			})
		case "nodeActions":
			w.array(p, val, func(i int, v []byte) {
				t.NodeActions = append(t.NodeActions, w.nodeAction(index(p, i), v))
			})
		default:
			w.unknown("data", key, treeFields)
		}
	})
	return t
}

func (w *walker) node(path string, raw []byte) Node {
	n := Node{Labels: []string{}}
	if absent(raw) {
		w.problem(path, "expected an object, got null")
	}
	w.object(path, raw, func(key string, val []byte) {
		p := field(path, key)
		switch key {
		case "id":
			w.str(p, val, &n.ID)
		case "pId":
			w.str(p, val, &n.PID)
		case "type":
			w.str(p, val, &n.Type)
		case "name":
			w.str(p, val, &n.Name)
		case "description":
			w.str(p, val, &n.Description)
		case "labels":
			n.Labels = w.labels(p, val)
		default:
			w.extra(&n, p, key, val)
		}
	})
	return n
}

func (w *walker) labels(path string, raw []byte) []string {
	labels := []string{}
	w.array(path, raw, func(i int, v []byte) {
		var s string
		if k := kindOf(v); k != jsonString {
			w.problem(index(path, i), "expected a string, got %s", k)
			return
		}
		w.str(index(path, i), v, &s)
		labels = append(labels, s)
	})
	return labels
}

// extra keeps the node member key in n.Extra, or reports it as a likely
// misspelling of a standard field.
func (w *walker) extra(n *Node, path, key string, val []byte) {
	if std, ok := reservedLike(key); ok {
		w.problem(path, "unknown field; did you mean %q?", std)
		return
	}
	var v any
	if err := decodeAny(val, &v); err != nil {
		w.problem(path, "%v", err)
		return
	}
	if n.Extra == nil {
		n.Extra = make(map[string]any)
	}
	n.Extra[key] = v
}

func (w *walker) nodeAction(path string, raw []byte) NodeAction {
	var na NodeAction
	if absent(raw) {
		w.problem(path, "expected an object, got null")
	}
	w.object(path, raw, func(key string, val []byte) {
		p := field(path, key)
		switch key {
		case "nodeType":
			w.str(p, val, &na.NodeType)
		case "nodeAction":
			w.str(p, val, &na.NodeAction)
		case "command":
			w.str(p, val, &na.Command)
		case "prompt":
			w.str(p, val, &na.Prompt)
		case "promptByNodeProperty":
			w.str(p, val, &na.PromptByNodeProperty)
		default:
			w.unknown(path, key, nodeActionFields)
		}
	})
	return na
}
