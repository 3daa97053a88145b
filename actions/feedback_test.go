package actions

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func TestDecodeFeedback(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want *Feedback
	}{
		{"confirm accepted", `{"action":"confirm","state":"tok","accepted":true}`,
			&Feedback{Action: KindConfirm, State: json.RawMessage(`"tok"`), Accepted: true}},
		{"confirm dismissed", `{"action":"confirm","state":"tok","accepted":false}`,
			&Feedback{Action: KindConfirm, State: json.RawMessage(`"tok"`)}},
		{"confirm, accepted absent means true", `{"action":"confirm","state":{}}`,
			&Feedback{Action: KindConfirm, State: json.RawMessage(`{}`), Accepted: true}},
		{"confirm, accepted null means true; tree members ignored", `{"action":"confirm","state":1,"accepted":null,"treeId":5}`,
			&Feedback{Action: KindConfirm, State: json.RawMessage(`1`), Accepted: true}},
		{"state echoed verbatim", `{"action":"confirm","state": { "a" : [1, 2] } }`,
			&Feedback{Action: KindConfirm, State: json.RawMessage(`{ "a" : [1, 2] }`), Accepted: true}},
		{"tree expand with node", `{"action":"tree","state":"s","treeId":"t1","nodeId":"n7","nodeAction":"expand","node":{"id":"n7","size":12.0},"extra":1}`,
			&Feedback{Action: KindTree, State: json.RawMessage(`"s"`), Accepted: true, TreeID: "t1", NodeID: "n7",
				NodeAction: NodeExpand, Node: map[string]any{"id": "n7", "size": json.Number("12.0")}}},
		{"tree click without node", `{"action":"tree","state":"s","treeId":"t1","nodeId":"n7","nodeAction":"click","node":null}`,
			&Feedback{Action: KindTree, State: json.RawMessage(`"s"`), Accepted: true, TreeID: "t1", NodeID: "n7", NodeAction: NodeClick}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeFeedback([]byte(tt.in))
			if err != nil {
				t.Fatalf("DecodeFeedback: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestDecodeFeedbackErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"not JSON", `{"action":`, `invalid action feedback: the action object is not valid JSON: unexpected end of JSON input`},
		{"not an object", `"confirm"`, `invalid action feedback: the action must be a JSON object, not a string`},
		{"array", `[]`, `invalid action feedback: the action must be a JSON object, not an array`},
		{"no action", `{"state":"s"}`, `invalid action feedback: "action" is missing; want "confirm" or "tree"`},
		{"unknown action", `{"action":"trees","state":"s"}`, `invalid action feedback: "action" is "trees", which is not an action; did you mean "tree"?`},
		{"action not a string", `{"action":true,"state":"s"}`, `invalid action feedback: "action" must be a string, not a boolean`},
		{"no state", `{"action":"confirm"}`, `invalid action feedback: "state" is missing; feedback must echo the state of the action it answers`},
		{"null state", `{"action":"confirm","state":null}`, `invalid action feedback: "state" is missing; feedback must echo the state of the action it answers`},
		{"accepted not a boolean", `{"action":"confirm","state":"s","accepted":"yes"}`, `invalid action feedback: "accepted" must be true or false, not a string`},
		{"duplicate member", `{"action":"confirm","state":"s","state":"t"}`, `invalid action feedback: "state" appears more than once`},
		{"tree missing everything", `{"action":"tree","state":"s"}`,
			`invalid action feedback: "treeId" is missing; tree feedback must name its tree; "nodeId" is missing; tree feedback must name the node acted on; "nodeAction" is missing; want "expand" or "click"`},
		{"tree bad gesture", `{"action":"tree","state":"s","treeId":"t","nodeId":"n","nodeAction":"open"}`,
			`invalid action feedback: "nodeAction" is "open"; want "expand" or "click"`},
		{"tree wrong types", `{"action":"tree","state":"s","treeId":1,"nodeId":["n"],"nodeAction":{},"node":"n"}`,
			`invalid action feedback: "treeId" must be a string, not a number; "nodeId" must be a string, not an array; "nodeAction" must be a string, not an object; "node" must be an object, not a string`},
		{"empty ids", `{"action":"tree","state":"s","treeId":"","nodeId":"","nodeAction":"click"}`,
			`invalid action feedback: "treeId" is missing; tree feedback must name its tree; "nodeId" is missing; tree feedback must name the node acted on`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := DecodeFeedback([]byte(tt.in))
			if err == nil {
				t.Fatalf("DecodeFeedback = %+v, want an error", f)
			}
			if !errors.Is(err, ErrFeedbackInvalid) {
				t.Errorf("error %v does not wrap ErrFeedbackInvalid", err)
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

func TestFeedbackStateString(t *testing.T) {
	tests := []struct {
		state string
		want  string
		ok    bool
	}{
		{`"v1.a.b"`, "v1.a.b", true},
		{`"a\"b"`, `a"b`, true},
		{`{}`, "", false},
		{`12`, "", false},
		{``, "", false},
	}
	for _, tt := range tests {
		f := &Feedback{State: json.RawMessage(tt.state)}
		got, ok := f.StateString()
		if got != tt.want || ok != tt.ok {
			t.Errorf("StateString(%s) = %q, %v; want %q, %v", tt.state, got, ok, tt.want, tt.ok)
		}
	}
}

func TestFeedbackMarshal(t *testing.T) {
	tests := []struct {
		f    Feedback
		want string
	}{
		{Feedback{Action: KindConfirm, State: json.RawMessage(`"s"`), Accepted: true, TreeID: "ignored"},
			`{"action":"confirm","state":"s","accepted":true}`},
		{Feedback{Action: KindConfirm, State: json.RawMessage(`{ "a": 1 }`)},
			`{"action":"confirm","state":{"a":1},"accepted":false}`},
		{Feedback{Action: KindTree, State: json.RawMessage(`"s"`), TreeID: "t", NodeID: "n", NodeAction: NodeClick},
			`{"action":"tree","state":"s","treeId":"t","nodeId":"n","nodeAction":"click"}`},
		{Feedback{Action: KindTree, State: json.RawMessage(`"s"`), TreeID: "t", NodeID: "n", NodeAction: NodeExpand, Node: map[string]any{}},
			`{"action":"tree","state":"s","treeId":"t","nodeId":"n","nodeAction":"expand","node":{}}`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(tt.f)
		if err != nil || string(got) != tt.want {
			t.Errorf("json.Marshal(%+v) = %s, %v; want %s", tt.f, got, err, tt.want)
		}
	}
	for _, bad := range []Feedback{{Action: KindConfirm}, {Action: "x", State: json.RawMessage(`1`)}} {
		if b, err := bad.MarshalJSON(); err == nil {
			t.Errorf("MarshalJSON(%+v) = %s, want an error", bad, b)
		}
	}
}
