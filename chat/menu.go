package chat

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// offered is an action offered as choices, with what its feedback needs.
type offered struct {
	wireAction
	// origin is the request whose answer carried the action, without any
	// "action" or "toolResults": its feedback is this body plus the action
	// object.
	origin map[string]any
}

// choice is one numbered entry of the menu: a normal request (command and
// prompt) or, when feedback is set, an action feedback request.
type choice struct {
	from            *offered
	text            string
	command, prompt string
	feedback        any
	// expand marks a tree's expand gesture: an answer carrying the same tree
	// is merged into it.
	expand bool
	// problem, when set, says why the choice cannot be sent.
	problem string
}

// confirmFeedback and treeFeedback are the "action" objects of docs/protocol.md
// §5.
type confirmFeedback struct {
	Action   string          `json:"action"`
	State    json.RawMessage `json:"state"`
	Accepted bool            `json:"accepted"`
}

type treeFeedback struct {
	Action     string          `json:"action"`
	State      json.RawMessage `json:"state"`
	TreeID     string          `json:"treeId"`
	NodeID     string          `json:"nodeId"`
	NodeAction string          `json:"nodeAction"`
	Node       treeNode        `json:"node"`
}

// menu numbers the choices as it prints them.
type menu struct {
	out     io.Writer
	choices []*choice
}

// showChoices prints the actions with their choices numbered from 1, then
// the way out.
func showChoices(w io.Writer, acts []*offered) *menu {
	m := &menu{out: w}
	for i, a := range acts {
		if i == 0 || a.Action != "confirm" || acts[i-1].Action != "confirm" {
			fmt.Fprintln(w) // buttons in a row, trees apart
		}
		switch a.Action {
		case "confirm":
			m.confirm(a)
		case "tree":
			m.tree(a)
		}
	}
	fmt.Fprintln(w, "  q) quit")
	return m
}

func (m *menu) add(indent string, c *choice) {
	m.choices = append(m.choices, c)
	fmt.Fprintf(m.out, "%s%d) %s\n", indent, len(m.choices), c.text)
}

// confirm offers a button: one choice when it runs a command or asks a
// prompt, accepting and dismissing when it sends feedback.
func (m *menu) confirm(a *offered) {
	d := a.Data
	button := fmt.Sprintf("[ %s ]  %s", d.Title, d.Message)
	if d.Command != "" || d.Prompt != "" {
		m.add("  ", &choice{from: a, text: button + request(d.Command, d.Prompt), command: d.Command, prompt: d.Prompt})
		return
	}
	for _, accepted := range []bool{true, false} {
		word := " → dismiss"
		if accepted {
			word = " → accept"
		}
		m.add("  ", &choice{from: a, text: button + word, feedback: confirmFeedback{Action: "confirm", State: a.State, Accepted: accepted}})
	}
}

// tree draws the tree, each node under its parent; a node with gestures
// gets one numbered line per gesture, the others a dash.
func (m *menu) tree(a *offered) {
	fmt.Fprintf(m.out, "  tree %s:\n", a.Data.TreeID)
	walkTree(a.Data.Nodes, a.Data.RootPID, func(n treeNode, depth int) {
		indent := "    " + strings.Repeat("  ", depth)
		found := false
		for _, na := range a.Data.NodeActions {
			if na.NodeType == n.typ {
				found = true
				m.add(indent, nodeChoice(a, n, na))
			}
		}
		if !found {
			fmt.Fprintf(m.out, "%s- %s\n", indent, n.label())
		}
	})
}

// nodeChoice is the choice of gesture na on node n of tree a.
func nodeChoice(a *offered, n treeNode, na nodeAction) *choice {
	c := &choice{from: a, expand: na.NodeAction == "expand", command: na.Command, prompt: na.Prompt}
	text := na.NodeAction + "  " + n.label()
	switch {
	case na.sendsFeedback():
		c.feedback = treeFeedback{Action: "tree", State: a.State, TreeID: a.Data.TreeID,
			NodeID: n.id, NodeAction: na.NodeAction, Node: n}
		text += " → sends feedback"
	case na.Prompt == "" && na.PromptByNodeProperty != "":
		p, ok := n.value(na.PromptByNodeProperty)
		if !ok {
			c.problem = fmt.Sprintf("%s has no %q to ask", n.field("name"), na.PromptByNodeProperty)
			return c.with(text + " → asks the node's " + na.PromptByNodeProperty + " (it has none)")
		}
		c.prompt = p
		text += request(c.command, c.prompt)
	default:
		text += request(c.command, c.prompt)
	}
	return c.with(text)
}

func (c *choice) with(text string) *choice {
	c.text = text
	return c
}

// request describes a normal request for command ("" for the default) with
// prompt.
func request(command, prompt string) string {
	switch {
	case command != "" && prompt != "":
		return fmt.Sprintf(" → runs command %s, asking %q", command, prompt)
	case command != "":
		return " → runs command " + command
	}
	return fmt.Sprintf(" → asks %q", prompt)
}
