package actions

import (
	"encoding/json"
	"errors"
	"fmt"
)

// confirmFeedbackJSON and treeFeedbackJSON are the wire shapes of Feedback.
type confirmFeedbackJSON struct {
	Action   string          `json:"action"`
	State    json.RawMessage `json:"state"`
	Accepted bool            `json:"accepted"`
}

type treeFeedbackJSON struct {
	Action     string          `json:"action"`
	State      json.RawMessage `json:"state"`
	TreeID     string          `json:"treeId"`
	NodeID     string          `json:"nodeId"`
	NodeAction string          `json:"nodeAction"`
	Node       any             `json:"node,omitempty"`
}

// MarshalJSON writes f in the shape DecodeFeedback reads, for clients such
// as a terminal plugin or a test: {"action":"confirm","state":...,
// "accepted":...} or {"action":"tree","state":...,"treeId":...,"nodeId":...,
// "nodeAction":...,"node":...} (node only when not nil). The state is
// written compacted.
func (f Feedback) MarshalJSON() ([]byte, error) {
	if len(f.State) == 0 {
		return nil, errors.New("writing action feedback: no state")
	}
	var v any
	switch f.Action {
	case KindConfirm:
		v = confirmFeedbackJSON{Action: f.Action, State: f.State, Accepted: f.Accepted}
	case KindTree:
		t := treeFeedbackJSON{Action: f.Action, State: f.State, TreeID: f.TreeID, NodeID: f.NodeID, NodeAction: f.NodeAction}
		if f.Node != nil {
			t.Node = f.Node
		}
		v = t
	default:
		return nil, fmt.Errorf("writing action feedback: unknown action %q", f.Action)
	}
	b, err := marshal(v)
	if err != nil {
		return nil, fmt.Errorf("writing %s feedback: %w", f.Action, err)
	}
	return b, nil
}
