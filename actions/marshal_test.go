package actions

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentgw/agentgw/internal/golden"
)

// goldenActions are the actions whose wire bytes are kept in testdata.
func goldenActions() map[string]*Action {
	return map[string]*Action{
		"confirm_plain": {Kind: KindConfirm, Confirm: &Confirm{Title: "Get the version", Message: "Shows the agent's version"}},
		"confirm_command": {Kind: KindConfirm, State: "v1.eyJhIjoiaGFwcHkifQ.c2ln",
			Confirm: &Confirm{Title: "获取版本号", Message: "a < b && c > d", Command: "version"}},
		"confirm_prompt": {Kind: KindConfirm, State: "opaque",
			Confirm: &Confirm{Title: "Explain", Message: "Explain the selection", Prompt: "Explain this code:\n\t\"quoted\""}},
		"confirm_json_state": {Kind: KindConfirm, State: `{"page":2}`, StateIsJSON: true,
			Confirm: &Confirm{Title: "Next page", Message: ""}},
		"tree_empty": {Kind: KindTree, Tree: &Tree{TreeID: "files"}},
		"tree_extra": {Kind: KindTree, State: "s", Tree: &Tree{
			TreeID:  "files",
			RootPID: "0",
			Nodes: []Node{
				{ID: "src", PID: "0", Type: "dir", Name: "src", Description: "sources", Labels: []string{"go"}},
				{ID: "src/main.go", PID: "src", Type: "file", Name: "main.go",
					Extra: map[string]any{"path": "/repo/src/main.go", "size": 1234, "meta": map[string]any{"lang": "go"}}},
			},
			NodeActions: []NodeAction{
				{NodeType: "dir", NodeAction: NodeExpand},
				{NodeType: "file", NodeAction: NodeClick, PromptByNodeProperty: "path"},
				{NodeType: "file", NodeAction: NodeExpand, Command: "outline"},
			},
		}},
	}
}

func TestMarshalGolden(t *testing.T) {
	for name, a := range goldenActions() {
		t.Run(name, func(t *testing.T) {
			if err := a.Validate(); err != nil {
				t.Fatalf("golden action is invalid: %v", err)
			}
			got, err := a.MarshalJSON()
			if err != nil {
				t.Fatalf("MarshalJSON: %v", err)
			}
			golden.Check(t, "testdata/"+name+".json", append(got, '\n'))
			// json.Marshal of the value and of the pointer use the same method.
			viaValue, err := json.Marshal(*a)
			if err != nil || !json.Valid(viaValue) {
				t.Fatalf("json.Marshal(value): %s, %v", viaValue, err)
			}
			back, err := Parse(got)
			if err != nil {
				t.Fatalf("Parse of golden bytes: %v", err)
			}
			again, err := back.MarshalJSON()
			if err != nil || !bytes.Equal(again, got) {
				t.Errorf("write, read, write differs:\n got %s\nwant %s (%v)", again, got, err)
			}
		})
	}
}

func TestMarshalErrors(t *testing.T) {
	tests := []struct {
		name string
		a    Action
	}{
		{"unknown kind", Action{Kind: "button", Confirm: &Confirm{Title: "x"}}},
		{"confirm without data", Action{Kind: KindConfirm}},
		{"tree without data", Action{Kind: KindTree}},
		{"state marked JSON but is not", Action{Kind: KindConfirm, State: "{nope", StateIsJSON: true, Confirm: &Confirm{Title: "x"}}},
		{"extra repeats a field", Action{Kind: KindTree, Tree: &Tree{TreeID: "t", Nodes: []Node{{ID: "a", Extra: map[string]any{"name": "x"}}}}}},
		{"extra not JSON", Action{Kind: KindTree, Tree: &Tree{TreeID: "t", Nodes: []Node{{ID: "a", Extra: map[string]any{"f": func() {}}}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if b, err := tt.a.MarshalJSON(); err == nil {
				t.Fatalf("MarshalJSON = %s, want an error", b)
			}
		})
	}
}

func TestNodeMarshalDefaults(t *testing.T) {
	got, err := json.Marshal(Node{ID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"a","pId":"","type":"","name":"","description":"","labels":[]}`
	if string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	got, err = json.Marshal(Tree{})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"treeId":"","rootPId":"","nodes":[],"nodeActions":[]}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestStateJSON(t *testing.T) {
	tests := []struct {
		a    Action
		want string
	}{
		{Action{}, `{}`},
		{Action{State: "v1.a.b"}, `"v1.a.b"`},
		{Action{State: `[1,2]`, StateIsJSON: true}, `[1,2]`},
		{Action{State: "", StateIsJSON: true}, `{}`},
		{Action{State: `<&>`}, `"<&>"`},
	}
	for _, tt := range tests {
		got, err := tt.a.StateJSON()
		if err != nil || string(got) != tt.want {
			t.Errorf("StateJSON(%+v) = %s, %v; want %s", tt.a, got, err, tt.want)
		}
	}
}

func TestParseGoldenEqual(t *testing.T) {
	// Parsing the golden tree gives back the action, with non-nil slices
	// and numbers as json.Number.
	b, err := os.ReadFile(filepath.Join("testdata", "tree_extra.json"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	want := goldenActions()["tree_extra"]
	want.Tree.Nodes[1].Labels = []string{}
	want.Tree.Nodes[1].Extra["size"] = json.Number("1234")
	if !reflect.DeepEqual(a, want) {
		t.Errorf("Parse = %#v\nwant %#v", a.Tree, want.Tree)
	}
}
