package actions

// Action kinds: the value of the "action" member of a copilot_action frame
// and of an action feedback request.
const (
	// KindConfirm is a button (docs/protocol.md §5).
	KindConfirm = "confirm"
	// KindTree is a tree of nodes whose gestures start requests or feedback.
	KindTree = "tree"
)

// Node gestures: the values of NodeAction.NodeAction and Feedback.NodeAction.
const (
	// NodeExpand is the gesture of opening a tree node.
	NodeExpand = "expand"
	// NodeClick is the gesture of clicking a tree node.
	NodeClick = "click"
)

// Confirm is the data of a confirm action: a button.
//
// With Command or Prompt set, a click makes the plugin send a normal agent
// request with that command or prompt; with neither it sends an action
// feedback request (docs/protocol.md §5).
type Confirm struct {
	// Title is the button text; it must not be blank.
	Title string `json:"title"`
	// Message describes what the button does.
	Message string `json:"message"`
	// Command, when set, is the command of the request a click starts.
	Command string `json:"command,omitempty"`
	// Prompt, when set, is the prompt of the request a click starts.
	Prompt string `json:"prompt,omitempty"`
}

// Tree is the data of a tree action.
//
// Nodes whose PID is RootPID are the top-level nodes. An answer to an
// "expand" feedback is a Tree with the same TreeID whose RootPID is the
// expanded node's id and whose nodes are its children: the plugin merges
// them, which lazily loads large trees.
type Tree struct {
	// TreeID identifies the tree within its agent; it must not be empty.
	TreeID string `json:"treeId"`
	// RootPID is the parent id of the top-level nodes (it may be empty).
	RootPID string `json:"rootPId"`
	// Nodes are the tree's nodes; written as [] when nil.
	Nodes []Node `json:"nodes"`
	// NodeActions map a node type and gesture to what it does; written as
	// [] when nil.
	NodeActions []NodeAction `json:"nodeActions"`
}

// Node is one node of a Tree.
type Node struct {
	// ID identifies the node; unique and non-empty within a tree.
	ID string `json:"id"`
	// PID is the parent's id, or the tree's RootPID for a top-level node.
	PID string `json:"pId"`
	// Type selects the NodeActions that apply to the node.
	Type string `json:"type"`
	// Name is the text the plugin shows.
	Name string `json:"name"`
	// Description is a longer text about the node.
	Description string `json:"description"`
	// Labels are short tags shown with the node; written as [] when nil.
	Labels []string `json:"labels"`
	// Extra holds additional node properties, written inline after the
	// standard ones in key order, for example a property a NodeAction's
	// PromptByNodeProperty names. A key equal to a standard field name, or
	// so close to one that it reads as its misspelling (see Validate), is
	// refused.
	Extra map[string]any `json:"-"`
}

// NodeAction says what a gesture on nodes of one type does: start a normal
// request with Command, with Prompt, or with the value of the node property
// named by PromptByNodeProperty as the prompt, or, with none of them, send
// an action feedback request. At most one of the three may be set.
type NodeAction struct {
	// NodeType is the type of the nodes the gesture applies to.
	NodeType string `json:"nodeType"`
	// NodeAction is the gesture: NodeExpand or NodeClick.
	NodeAction string `json:"nodeAction"`
	// Command, when set, is the command of the request the gesture starts.
	Command string `json:"command,omitempty"`
	// Prompt, when set, is the prompt of the request the gesture starts.
	Prompt string `json:"prompt,omitempty"`
	// PromptByNodeProperty, when set, names the node property whose value
	// is the prompt of the request the gesture starts.
	PromptByNodeProperty string `json:"promptByNodeProperty,omitempty"`
}

// Action is one copilot_action frame. Exactly one of Confirm and Tree is
// set, matching Kind. Its JSON form (MarshalJSON, Parse) is the frame's
// data: {"action": Kind, "state": State, "data": Confirm or Tree}.
type Action struct {
	// Kind is KindConfirm or KindTree.
	Kind string
	// State is echoed back by the plugin in feedback. The gateway puts a
	// signed token here (Signer); plugins treat it as opaque. It is written
	// as a JSON string, or as {} when empty.
	State string
	// Confirm is the data of a confirm action.
	Confirm *Confirm
	// Tree is the data of a tree action.
	Tree *Tree
	// StateIsJSON says State holds the JSON text of a state that is not a
	// string, as Parse keeps it (for example {"page":2} from another agent
	// service); it is then written unchanged instead of as a string.
	StateIsJSON bool
}

// Standard member names on the wire, in the order they are written.
var (
	actionFields     = []string{"action", "state", "data"}
	confirmFields    = []string{"title", "message", "command", "prompt"}
	treeFields       = []string{"treeId", "rootPId", "nodes", "nodeActions"}
	nodeFields       = []string{"id", "pId", "type", "name", "description", "labels"}
	nodeActionFields = []string{"nodeType", "nodeAction", "command", "prompt", "promptByNodeProperty"}
	kinds            = []string{KindConfirm, KindTree}
)

// reservedLike reports the standard node field that an extra node property
// named key collides with or reads as a misspelling of. Parse treats such a
// key as a mistake and Validate refuses it, so that every valid node
// survives a write and a read.
func reservedLike(key string) (string, bool) {
	return closest(key, nodeFields)
}
