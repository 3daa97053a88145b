package actions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// wireAction is the JSON shape of an Action.
type wireAction struct {
	Action string          `json:"action"`
	State  json.RawMessage `json:"state"`
	Data   any             `json:"data"`
}

// emptyState is how an empty State is written, as in the seed's samples.
var emptyState = json.RawMessage("{}")

// MarshalJSON writes a as the data of its copilot_action frame, exactly:
// {"action":"confirm"|"tree","state":<state>,"data":{...}}, compact, with
// <, > and & written as themselves. It does not apply Validate's rules but
// fails on an action it cannot write: an unknown Kind, missing data for the
// Kind, a State marked StateIsJSON that is not JSON, or a node whose Extra
// repeats a standard field.
func (a Action) MarshalJSON() ([]byte, error) {
	state, err := a.StateJSON()
	if err != nil {
		return nil, err
	}
	w := wireAction{Action: a.Kind, State: state}
	switch a.Kind {
	case KindConfirm:
		if a.Confirm == nil {
			return nil, errors.New("writing confirm action: no Confirm data")
		}
		w.Data = a.Confirm
	case KindTree:
		if a.Tree == nil {
			return nil, errors.New("writing tree action: no Tree data")
		}
		w.Data = a.Tree
	default:
		return nil, fmt.Errorf("writing action: unknown kind %q", a.Kind)
	}
	b, err := marshal(w)
	if err != nil {
		return nil, fmt.Errorf("writing %s action: %w", a.Kind, err)
	}
	return b, nil
}

// StateJSON returns the state as MarshalJSON writes it: {} when State is
// empty, State itself when StateIsJSON, else State as a JSON string.
func (a Action) StateJSON() (json.RawMessage, error) {
	switch {
	case a.State == "":
		return emptyState, nil
	case a.StateIsJSON:
		if !json.Valid([]byte(a.State)) {
			return nil, errors.New("writing action: state marked as JSON is not valid JSON")
		}
		return json.RawMessage(a.State), nil
	}
	return marshal(a.State)
}

// MarshalJSON writes t with nodes and nodeActions as arrays, never null.
func (t Tree) MarshalJSON() ([]byte, error) {
	type plain Tree
	if t.Nodes == nil {
		t.Nodes = []Node{}
	}
	if t.NodeActions == nil {
		t.NodeActions = []NodeAction{}
	}
	return marshal(plain(t))
}

// MarshalJSON writes n's standard fields, labels as an array, never null,
// then the Extra properties in key order.
func (n Node) MarshalJSON() ([]byte, error) {
	type plain Node
	if n.Labels == nil {
		n.Labels = []string{}
	}
	b, err := marshal(plain(n))
	if err != nil || len(n.Extra) == 0 {
		return b, err
	}
	b = b[:len(b)-1] // the closing brace
	for _, k := range slices.Sorted(maps.Keys(n.Extra)) {
		if slices.Contains(nodeFields, k) {
			return nil, fmt.Errorf("node %q: extra property %q repeats a standard field", n.ID, k)
		}
		kb, _ := marshal(k)
		vb, err := marshal(n.Extra[k])
		if err != nil {
			return nil, fmt.Errorf("node %q: extra property %q: %w", n.ID, k, err)
		}
		b = append(append(append(append(b, ','), kb...), ':'), vb...)
	}
	return append(b, '}'), nil
}

// marshal is json.Marshal without HTML escaping, so that the outermost
// encoder decides how <, > and & are written.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}
