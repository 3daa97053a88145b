package actions

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrFeedbackInvalid is wrapped by every error of DecodeFeedback.
var ErrFeedbackInvalid = errors.New("invalid action feedback")

// Feedback is an action feedback request's "action" object (docs/protocol.md
// §5): the plugin's answer to a confirm or tree action.
type Feedback struct {
	// Action is the kind of the action answered: KindConfirm or KindTree.
	Action string
	// State is the action's state, echoed verbatim (any JSON).
	State json.RawMessage
	// Accepted reports whether the user accepted a confirm action. An
	// absent or null "accepted" means true: clicking the button is the
	// acceptance, and plugins that follow the seed send no such member. A
	// tree gesture is always accepted.
	Accepted bool
	// TreeID is the tree's id (tree feedback only).
	TreeID string
	// NodeID is the id of the node acted on (tree feedback only).
	NodeID string
	// NodeAction is the gesture, NodeExpand or NodeClick (tree feedback only).
	NodeAction string
	// Node is the node acted on as the plugin sent it, if it did (tree
	// feedback only); numbers are json.Number.
	Node map[string]any
}

// DecodeFeedback decodes and checks the "action" object of a feedback
// request: the action is known, a state is present (not null), and tree
// feedback names its treeId and nodeId and a nodeAction of "expand" or
// "click". Members are matched exactly; unknown members and the members of
// the other kind are ignored, so that plugins may send more. Every error
// wraps ErrFeedbackInvalid and says, in sentences, all that is wrong.
func DecodeFeedback(data []byte) (*Feedback, error) {
	if !json.Valid(data) {
		var v json.RawMessage
		err := json.Unmarshal(data, &v)
		return nil, fmt.Errorf("%w: the action object is not valid JSON: %w", ErrFeedbackInvalid, err)
	}
	if k := kindOf(data); k != jsonObject {
		return nil, fmt.Errorf("%w: the action must be a JSON object, not %s", ErrFeedbackInvalid, article(k))
	}
	f := &Feedback{Accepted: true}
	var d feedbackDecoder
	dups, err := members(data, func(key string, val []byte) { d.member(f, key, val) })
	for _, k := range dups {
		d.failf("%q appears more than once", k)
	}
	if err != nil {
		d.failf("the action object cannot be read: %v", err)
	}
	d.check(f)
	if len(d.problems) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrFeedbackInvalid, strings.Join(d.problems, "; "))
	}
	return f, nil
}

// feedbackDecoder collects the problems of one feedback object.
type feedbackDecoder struct {
	problems []string
	tree     struct{ treeID, nodeID, nodeAction, node []byte }
	action   []byte
	accepted []byte
}

func (d *feedbackDecoder) failf(format string, args ...any) {
	d.problems = append(d.problems, fmt.Sprintf(format, args...))
}

func (d *feedbackDecoder) member(f *Feedback, key string, val []byte) {
	switch key {
	case "action":
		d.action = val
	case "state":
		if !absent(val) {
			f.State = append(json.RawMessage(nil), val...)
		}
	case "accepted":
		d.accepted = val
	case "treeId":
		d.tree.treeID = val
	case "nodeId":
		d.tree.nodeID = val
	case "nodeAction":
		d.tree.nodeAction = val
	case "node":
		d.tree.node = val
	}
}

// str decodes the string member key; null is absent.
func (d *feedbackDecoder) str(key string, val []byte, dst *string) {
	switch k := kindOf(val); k {
	case jsonNull, jsonMissing:
	case jsonString:
		if err := json.Unmarshal(val, dst); err != nil {
			d.failf("%q cannot be read: %v", key, err)
		}
	default:
		d.failf("%q must be a string, not %s", key, article(k))
	}
}

// check applies the rules of DecodeFeedback once all members are read.
func (d *feedbackDecoder) check(f *Feedback) {
	d.str("action", d.action, &f.Action)
	switch {
	case d.wrongType(d.action):
	case f.Action == KindConfirm:
		d.confirm(f)
	case f.Action == KindTree:
		d.treeFeedback(f)
	case f.Action == "":
		d.failf(`"action" is missing; want %q or %q`, KindConfirm, KindTree)
	default:
		d.failf(`"action" is %q, which is not an action%s`, f.Action, didYouMean(f.Action, kinds))
	}
	if f.State == nil {
		d.failf(`"state" is missing; feedback must echo the state of the action it answers`)
	}
}

func (d *feedbackDecoder) confirm(f *Feedback) {
	switch k := kindOf(d.accepted); k {
	case jsonNull, jsonMissing:
	case jsonBoolean:
		f.Accepted = strings.TrimSpace(string(d.accepted)) == "true"
	default:
		d.failf(`"accepted" must be true or false, not %s`, article(k))
	}
}

func (d *feedbackDecoder) treeFeedback(f *Feedback) {
	d.str("treeId", d.tree.treeID, &f.TreeID)
	d.str("nodeId", d.tree.nodeID, &f.NodeID)
	d.str("nodeAction", d.tree.nodeAction, &f.NodeAction)
	if f.TreeID == "" && !d.wrongType(d.tree.treeID) {
		d.failf(`"treeId" is missing; tree feedback must name its tree`)
	}
	if f.NodeID == "" && !d.wrongType(d.tree.nodeID) {
		d.failf(`"nodeId" is missing; tree feedback must name the node acted on`)
	}
	switch {
	case f.NodeAction == NodeExpand || f.NodeAction == NodeClick:
	case d.wrongType(d.tree.nodeAction):
	case f.NodeAction == "":
		d.failf(`"nodeAction" is missing; want %q or %q`, NodeExpand, NodeClick)
	default:
		d.failf(`"nodeAction" is %q; want %q or %q`, f.NodeAction, NodeExpand, NodeClick)
	}
	switch k := kindOf(d.tree.node); k {
	case jsonNull, jsonMissing:
	case jsonObject:
		if err := decodeAny(d.tree.node, &f.Node); err != nil {
			d.failf(`"node" cannot be read: %v`, err)
		}
	default:
		d.failf(`"node" must be an object, not %s`, article(k))
	}
}

// wrongType reports whether val is present but not a string (already
// reported by str).
func (d *feedbackDecoder) wrongType(val []byte) bool {
	k := kindOf(val)
	return k != jsonString && k != jsonNull && k != jsonMissing
}

// article is a JSON kind with its indefinite article.
func article(kind string) string {
	switch kind {
	case jsonObject, jsonArray:
		return "an " + kind
	case jsonNull:
		return kind
	}
	return "a " + kind
}

// StateString returns the echoed state when it is a JSON string, as the
// gateway's signed states are.
func (f *Feedback) StateString() (string, bool) {
	if kindOf(f.State) != jsonString {
		return "", false
	}
	var s string
	if err := json.Unmarshal(f.State, &s); err != nil {
		return "", false
	}
	return s, true
}

// Gesture names the handler of an agent's action the feedback asks for:
// onAccept or onDismiss for a confirm, onExpand or onClick for a tree.
func (fb *Feedback) Gesture() string {
	switch {
	case fb.Action == KindConfirm && fb.Accepted:
		return "onAccept"
	case fb.Action == KindConfirm:
		return "onDismiss"
	case fb.NodeAction == NodeExpand:
		return "onExpand"
	default:
		return "onClick"
	}
}
