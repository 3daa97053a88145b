package agenttest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/actions"
)

// click turns body into what the plugin sends when the user clicks c on an
// action of the last answer: a normal request when the action names a
// command or a prompt, else feedback echoing the action's signed state.
func (s *session) click(c *Click, body map[string]any) error {
	if s.last == nil {
		return fmt.Errorf("action: there is no answer yet whose action could be clicked")
	}
	kind := c.Action
	if kind == "" {
		kind = actions.KindConfirm
		if c.NodeID != "" || c.TreeID != "" || c.NodeAction != "" {
			kind = actions.KindTree
		}
	}
	switch kind {
	case actions.KindConfirm:
		return s.clickConfirm(c, body)
	case actions.KindTree:
		return s.clickNode(c, body)
	}
	return fmt.Errorf("action: %q is not confirm or tree", kind)
}

// clickConfirm clicks (or dismisses) a confirm of the last answer.
func (s *session) clickConfirm(c *Click, body map[string]any) error {
	var found []*actions.Action
	var titles []string
	for _, a := range s.last.actions {
		if a.Kind != actions.KindConfirm || a.Confirm == nil {
			continue
		}
		titles = append(titles, fmt.Sprintf("%q", a.Confirm.Title))
		if c.Title == "" || a.Confirm.Title == c.Title {
			found = append(found, a)
		}
	}
	switch {
	case len(found) == 0 && c.Title != "":
		return fmt.Errorf("action: the answer has no confirm titled %q (it has %s)", c.Title, orNone(titles))
	case len(found) == 0:
		return fmt.Errorf("action: the answer has no confirm action to click")
	case len(found) > 1:
		return fmt.Errorf("action: the answer has %d confirms (%s): name one with title", len(found), strings.Join(titles, ", "))
	}
	a := found[0]
	accepted := c.Accepted == nil || *c.Accepted
	if accepted && (a.Confirm.Command != "" || a.Confirm.Prompt != "") {
		s.restart(body, a.Confirm.Command, a.Confirm.Prompt, a.Confirm.Prompt != "")
		return nil
	}
	body["action"] = map[string]any{"action": actions.KindConfirm, "state": stateJSON(a), "accepted": accepted}
	return nil
}

// clickNode clicks or expands a node of a tree shown so far.
func (s *session) clickNode(c *Click, body map[string]any) error {
	treeID := c.TreeID
	if treeID == "" {
		treeID = s.lastTree
	}
	nodes, ok := s.nodes[treeID]
	if !ok {
		return fmt.Errorf("action: no tree %q was shown (trees: %s)", treeID, orNone(slices.Sorted(maps.Keys(s.nodes))))
	}
	shown, ok := nodes[c.NodeID]
	if !ok {
		return fmt.Errorf("action: tree %q has no node %q (nodes: %s)", treeID, c.NodeID, orNone(slices.Sorted(maps.Keys(nodes))))
	}
	gesture := c.NodeAction
	if gesture == "" {
		gesture = actions.NodeClick
	}
	var na *actions.NodeAction
	for i, x := range shown.frame.Tree.NodeActions {
		if x.NodeType == shown.node.Type && x.NodeAction == gesture {
			na = &shown.frame.Tree.NodeActions[i]
			break
		}
	}
	if na == nil {
		return fmt.Errorf("action: the tree offers no %s on nodes of type %q", gesture, shown.node.Type)
	}
	node := nodeJSON(shown.node)
	switch {
	case na.Command != "" || na.Prompt != "":
		s.restart(body, na.Command, na.Prompt, na.Prompt != "")
	case na.PromptByNodeProperty != "":
		s.restart(body, "", fmt.Sprint(node[na.PromptByNodeProperty]), true)
	default:
		body["action"] = map[string]any{"action": actions.KindTree, "state": stateJSON(shown.frame), "treeId": treeID,
			"nodeId": c.NodeID, "nodeAction": gesture, "node": node}
	}
	return nil
}

// restart makes body the normal request an action starts: command (or the
// default), and with withPrompt the prompt as the user's input.
func (s *session) restart(body map[string]any, command, prompt string, withPrompt bool) {
	delete(body, "command")
	if command != "" {
		body["command"] = command
	}
	if !withPrompt {
		return
	}
	vars, _ := body["contextVariables"].([]any)
	out := make([]any, 0, len(vars)+1)
	for _, v := range vars {
		if m, ok := v.(map[string]any); ok && m["name"] == "userInputPrompt" {
			continue
		}
		out = append(out, v)
	}
	body["contextVariables"] = append(out, map[string]any{"name": "userInputPrompt", "value": prompt})
}

// stateJSON is an action's state as the plugin echoes it.
func stateJSON(a *actions.Action) json.RawMessage {
	if a.StateIsJSON {
		return json.RawMessage(a.State)
	}
	b, _ := json.Marshal(a.State)
	return b
}

// nodeJSON is a node as the plugin sends it back.
func nodeJSON(n actions.Node) map[string]any {
	out := map[string]any{}
	maps.Copy(out, n.Extra)
	labels := n.Labels
	if labels == nil {
		labels = []string{}
	}
	out["id"], out["pId"], out["type"], out["name"], out["description"], out["labels"] = n.ID, n.PID, n.Type, n.Name, n.Description, labels
	return out
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}
