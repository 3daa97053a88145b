package actions

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// problemLines returns the "path: message" lines of err, as joined by
// Parse, Validate and DecodeFeedback.
func problemLines(err error) []string {
	var out []string
	for _, p := range Problems(err) {
		out = append(out, p.Error())
	}
	return out
}

func TestParseValid(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want *Action
	}{
		{"confirm, string state", `{"action":"confirm","state":"tok","data":{"title":"T","message":"M","command":"c","prompt":"p"}}`,
			&Action{Kind: KindConfirm, State: "tok", Confirm: &Confirm{Title: "T", Message: "M", Command: "c", Prompt: "p"}}},
		{"seed sample, empty object state", `{"action":"confirm","state":{},"data":{"title":"获取版本号","command":"version","prompt":""}}`,
			&Action{Kind: KindConfirm, Confirm: &Confirm{Title: "获取版本号", Command: "version"}}},
		{"no state, members in any order", `{"data":{"title":"T"},"action":"confirm"}`,
			&Action{Kind: KindConfirm, Confirm: &Confirm{Title: "T"}}},
		{"null state and null optional fields", `{"action":"confirm","state":null,"data":{"title":"T","message":null,"command":null}}`,
			&Action{Kind: KindConfirm, Confirm: &Confirm{Title: "T"}}},
		{"object state kept compact", "{\"action\":\"confirm\",\"state\":{ \"page\" : 2 },\"data\":{\"title\":\"T\"}}",
			&Action{Kind: KindConfirm, State: `{"page":2}`, StateIsJSON: true, Confirm: &Confirm{Title: "T"}}},
		{"number state", `{"action":"confirm","state":42,"data":{"title":"T"}}`,
			&Action{Kind: KindConfirm, State: `42`, StateIsJSON: true, Confirm: &Confirm{Title: "T"}}},
		{"tree with extras", `{"action":"tree","state":"s","data":{"treeId":"t","rootPId":"r","nodes":[
			{"id":"a","pId":"r","type":"f","name":"A","description":"d","labels":["x","y"],"path":"/a","n":1.50,"tags":[true,null]}],
			"nodeActions":[{"nodeType":"f","nodeAction":"click","promptByNodeProperty":"path"}]}}`,
			&Action{Kind: KindTree, State: "s", Tree: &Tree{TreeID: "t", RootPID: "r",
				Nodes: []Node{{ID: "a", PID: "r", Type: "f", Name: "A", Description: "d", Labels: []string{"x", "y"},
					Extra: map[string]any{"path": "/a", "n": json.Number("1.50"), "tags": []any{true, nil}}}},
				NodeActions: []NodeAction{{NodeType: "f", NodeAction: NodeClick, PromptByNodeProperty: "path"}}}}},
		{"tree with missing arrays", `{"action":"tree","data":{"treeId":"t","nodes":null}}`,
			&Action{Kind: KindTree, Tree: &Tree{TreeID: "t", Nodes: []Node{}, NodeActions: []NodeAction{}}}},
		{"node without labels", `{"action":"tree","data":{"treeId":"t","nodes":[{"id":"a"}],"nodeActions":[]}}`,
			&Action{Kind: KindTree, Tree: &Tree{TreeID: "t", Nodes: []Node{{ID: "a", Labels: []string{}}}, NodeActions: []NodeAction{}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse =\n%#v\nwant\n%#v", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tree := func(nodes string) string {
		return `{"action":"tree","data":{"treeId":"t","nodes":[` + nodes + `]}}`
	}
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"not an object", `[1]`, []string{"expected an object, got array"}},
		{"null", `null`, []string{"expected an object, got null"}},
		{"unknown top-level field", `{"action":"confirm","stat":"x","data":{"title":"T"}}`,
			[]string{`stat: unknown field; did you mean "state"?`}},
		{"unknown field far from any", `{"action":"confirm","zzz":1,"data":{"title":"T"}}`,
			[]string{`zzz: unknown field (known: action, state, data)`}},
		{"case differs", `{"Action":"confirm","data":{"title":"T"}}`,
			[]string{`Action: unknown field; did you mean "action"?`, `action: missing; want "confirm" or "tree"`}},
		{"missing data", `{"action":"confirm"}`, []string{"data: missing"}},
		{"unknown kind", `{"action":"trea","data":{}}`, []string{`action: unknown action "trea"; did you mean "tree"?`}},
		{"kind not a string", `{"action":1,"data":{}}`, []string{`action: expected a string, got number`}},
		{"confirm data unknown field", `{"action":"confirm","data":{"titel":"T","messages":"m","x-y":1}}`,
			[]string{`data.titel: unknown field; did you mean "title"?`, `data.messages: unknown field; did you mean "message"?`,
				`data["x-y"]: unknown field (known: title, message, command, prompt)`}},
		{"confirm wrong types", `{"action":"confirm","data":{"title":1,"message":["m"],"command":{}}}`,
			[]string{`data.title: expected a string, got number`, `data.message: expected a string, got array`,
				`data.command: expected a string, got object`}},
		{"data not an object", `{"action":"confirm","data":"x"}`, []string{`data: expected an object, got string`}},
		{"duplicate member", `{"action":"confirm","data":{"title":"a","title":"b"}}`, []string{`data.title: duplicate field`}},
		{"tree unknown field", `{"action":"tree","data":{"treeID":"t","node":[]}}`,
			[]string{`data.treeID: unknown field; did you mean "treeId"?`, `data.node: unknown field; did you mean "nodes"?`}},
		{"node misspelled field", tree(`{"id":"a"},{"id":"b"},{"id":"c","lable":["x"]}`),
			[]string{`data.nodes[2].lable: unknown field; did you mean "labels"?`}},
		{"node field case", tree(`{"id":"a","pid":"r","Name":"n"}`),
			[]string{`data.nodes[0].pid: unknown field; did you mean "pId"?`, `data.nodes[0].Name: unknown field; did you mean "name"?`}},
		{"node wrong types", tree(`{"id":1,"labels":"x"},{"id":"b","labels":["x",2,null]},7`),
			[]string{`data.nodes[0].id: expected a string, got number`, `data.nodes[0].labels: expected an array, got string`,
				`data.nodes[1].labels[1]: expected a string, got number`, `data.nodes[1].labels[2]: expected a string, got null`,
				`data.nodes[2]: expected an object, got number`}},
		{"nodes not an array", `{"action":"tree","data":{"treeId":"t","nodes":{}}}`,
			[]string{`data.nodes: expected an array, got object`}},
		{"node action unknown field", `{"action":"tree","data":{"treeId":"t","nodeActions":[{"nodeType":"f","nodeAction":"click","promt":"p","action":"x"}]}}`,
			[]string{`data.nodeActions[0].promt: unknown field; did you mean "prompt"?`,
				`data.nodeActions[0].action: unknown field (known: nodeType, nodeAction, command, prompt, promptByNodeProperty)`}},
		{"node action wrong type", `{"action":"tree","data":{"treeId":"t","nodeActions":[{"nodeType":["f"]},null]}}`,
			[]string{`data.nodeActions[0].nodeType: expected a string, got array`, `data.nodeActions[1]: expected an object, got null`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Parse([]byte(tt.in))
			if err == nil {
				t.Fatalf("Parse = %+v, want errors %q", a, tt.want)
			}
			if got := problemLines(err); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("problems:\n got %q\nwant %q", got, tt.want)
			}
			if got := err.Error(); got != strings.Join(tt.want, "\n") {
				t.Errorf("Error() = %q", got)
			}
		})
	}
}

func TestParseInvalidJSON(t *testing.T) {
	for _, in := range []string{``, `{`, `{"action":"confirm"} x`, `{"a":01}`} {
		_, err := Parse([]byte(in))
		var se *json.SyntaxError
		if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), "parsing action: invalid JSON") {
			t.Errorf("Parse(%q) = %v, want a wrapped *json.SyntaxError", in, err)
		}
	}
}

func TestProblemsWrapped(t *testing.T) {
	_, err := Parse([]byte(`{"action":"confirm","data":{"titel":"T","x":1}}`))
	wrapped := errors.Join(errors.New("other"), fmt.Errorf("loading agent: %w", err))
	if n := len(Problems(wrapped)); n != 2 {
		t.Errorf("Problems found %d, want 2", n)
	}
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Path != "data.titel" {
		t.Errorf("errors.As = %v", ve)
	}
	if (&ValidationError{Message: "m"}).Error() != "m" {
		t.Error("an empty path is left out")
	}
}
