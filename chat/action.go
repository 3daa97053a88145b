package chat

import (
	"encoding/json"
	"fmt"
)

// wireAction is a copilot_action frame as received.
type wireAction struct {
	Action string `json:"action"`
	// State is echoed verbatim in feedback, whatever JSON it is.
	State json.RawMessage `json:"state"`
	Data  actionData      `json:"data"`
}

// actionData is the data of a confirm or a tree action.
type actionData struct {
	Title, Message, Command, Prompt string
	TreeID                          string       `json:"treeId"`
	RootPID                         string       `json:"rootPId"`
	Nodes                           []treeNode   `json:"nodes"`
	NodeActions                     []nodeAction `json:"nodeActions"`
}

// nodeAction says what a gesture on the nodes of one type does.
type nodeAction struct {
	NodeType, NodeAction, Command, Prompt, PromptByNodeProperty string
}

// sendsFeedback reports whether the gesture sends action feedback rather
// than a normal request.
func (na nodeAction) sendsFeedback() bool {
	return na.Command == "" && na.Prompt == "" && na.PromptByNodeProperty == ""
}

// treeNode is a tree node: kept as received for feedback, and by member for
// display and promptByNodeProperty.
type treeNode struct {
	raw   json.RawMessage
	props map[string]json.RawMessage
	// id, pID and typ are the node's id, pId and type as text ("" when
	// absent); identified says whether it has an id.
	id, pID, typ string
	identified   bool
}

// UnmarshalJSON keeps the node's bytes and its members.
func (n *treeNode) UnmarshalJSON(b []byte) error {
	var props map[string]json.RawMessage
	if err := json.Unmarshal(b, &props); err != nil {
		return fmt.Errorf("a tree node: %w", err)
	}
	*n = treeNode{raw: append(json.RawMessage(nil), b...), props: props}
	n.id, n.identified = n.value("id")
	n.pID, n.typ = n.field("pId"), n.field("type")
	return nil
}

// MarshalJSON writes the node as it was received.
func (n treeNode) MarshalJSON() ([]byte, error) {
	if n.raw == nil {
		return []byte("null"), nil
	}
	return n.raw, nil
}

// value returns the member key as text: a string as it is, any other JSON
// value as its JSON text. ok is false when the member is absent or null.
func (n treeNode) value(key string) (text string, ok bool) {
	v, ok := n.props[key]
	if !ok || string(v) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s, true
	}
	return string(v), true
}

// field returns the member key as text, "" when absent or null.
func (n treeNode) field(key string) string {
	s, _ := n.value(key)
	return s
}

// label is how a node is printed: name (type): description.
func (n treeNode) label() string {
	line := n.field("name")
	if n.typ != "" {
		line += " (" + n.typ + ")"
	}
	if d := n.field("description"); d != "" {
		line += ": " + d
	}
	return line
}

// walkTree visits the nodes under parent depth first, in node order, with
// their depth. Each node is visited at most once, so that a cycle in a
// malformed tree cannot recurse forever.
func walkTree(nodes []treeNode, parent string, visit func(n treeNode, depth int)) {
	children := make(map[string][]int, len(nodes))
	for i, n := range nodes {
		children[n.pID] = append(children[n.pID], i)
	}
	seen := make([]bool, len(nodes))
	var walk func(parent string, depth int)
	walk = func(parent string, depth int) {
		for _, i := range children[parent] {
			if seen[i] {
				continue
			}
			seen[i] = true
			visit(nodes[i], depth)
			walk(nodes[i].id, depth+1)
		}
	}
	walk(parent, 0)
}
