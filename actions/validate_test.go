package actions

import (
	"math"
	"reflect"
	"testing"
)

// validTree is a small valid tree; tests change one thing at a time.
func validTree() *Tree {
	return &Tree{
		TreeID:  "t",
		RootPID: "root",
		Nodes: []Node{
			{ID: "a", PID: "root", Type: "dir", Name: "a"},
			{ID: "b", PID: "a", Type: "file", Name: "b", Extra: map[string]any{"path": "/a/b"}},
		},
		NodeActions: []NodeAction{
			{NodeType: "dir", NodeAction: NodeExpand},
			{NodeType: "file", NodeAction: NodeClick, PromptByNodeProperty: "path"},
		},
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		action *Action
		change func(t *Tree)
		want   []string
	}{
		{name: "valid confirm", action: &Action{Kind: KindConfirm, Confirm: &Confirm{Title: "OK"}}},
		{name: "valid tree", change: func(*Tree) {}},
		{name: "expand answer: rootPId is the expanded node", change: func(t *Tree) {
			t.RootPID = "x"
			t.Nodes = []Node{{ID: "c1", PID: "x", Type: "file", Extra: map[string]any{"path": "p"}}}
			t.NodeActions = t.NodeActions[1:]
		}},
		{name: "nil action", action: nil, want: []string{"no action"}},
		{name: "missing kind", action: &Action{Confirm: &Confirm{Title: "x"}},
			want: []string{`action: missing; want "confirm" or "tree"`}},
		{name: "unknown kind", action: &Action{Kind: "confirn", Confirm: &Confirm{Title: "x"}},
			want: []string{`action: unknown action "confirn"; did you mean "confirm"?`}},
		{name: "blank title", action: &Action{Kind: KindConfirm, Confirm: &Confirm{Title: " \t"}},
			want: []string{"data.title: must not be blank: it is the button text"}},
		{name: "confirm without data", action: &Action{Kind: KindConfirm},
			want: []string{"data: missing: a confirm action needs its Confirm data"}},
		{name: "confirm with tree data", action: &Action{Kind: KindConfirm, Confirm: &Confirm{Title: "x"}, Tree: &Tree{}},
			want: []string{"data: a confirm action carries tree data"}},
		{name: "tree without data", action: &Action{Kind: KindTree},
			want: []string{"data: missing: a tree action needs its Tree data"}},
		{name: "tree with confirm data", action: &Action{Kind: KindTree, Tree: &Tree{TreeID: "t"}, Confirm: &Confirm{}},
			want: []string{"data: a tree action carries confirm data"}},
		{name: "state not JSON", action: &Action{Kind: KindConfirm, State: "{", StateIsJSON: true, Confirm: &Confirm{Title: "x"}},
			want: []string{"state: marked as JSON but is not valid JSON"}},
		{name: "empty treeId", change: func(t *Tree) { t.TreeID = "" },
			want: []string{"data.treeId: must not be empty"}},
		{name: "empty node id", change: func(t *Tree) { t.Nodes[0].ID = ""; t.Nodes[1].PID = "root" },
			want: []string{"data.nodes[0].id: must not be empty"}},
		{name: "duplicate node id", change: func(t *Tree) { t.Nodes = append(t.Nodes, Node{ID: "a", PID: "root", Type: "dir"}) },
			want: []string{`data.nodes[2].id: duplicate id "a" (also data.nodes[0])`}},
		{name: "rootPId is a node", change: func(t *Tree) { t.RootPID = "b"; t.Nodes[0].PID = "b" },
			want: []string{`data.rootPId: "b" is also the id of data.nodes[1]; the top-level nodes' parent must not be a node`}},
		{name: "unknown parent", change: func(t *Tree) { t.Nodes[1].PID = "zz" },
			want: []string{`data.nodes[1].pId: "zz" is neither rootPId ("root") nor the id of another node`}},
		{name: "own parent", change: func(t *Tree) { t.Nodes[1].PID = "b" },
			want: []string{`data.nodes[1].pId: is the node's own id`}},
		{name: "parent cycle", change: func(t *Tree) {
			t.Nodes[0].PID = "b"
			t.Nodes = append(t.Nodes, Node{ID: "c", PID: "a", Type: "dir"}, Node{ID: "d", PID: "root", Type: "dir"})
		}, want: []string{
			`data.nodes[0].pId: node "a" is not connected to rootPId: its parents form a cycle`,
			`data.nodes[1].pId: node "b" is not connected to rootPId: its parents form a cycle`,
			`data.nodes[2].pId: node "c" is not connected to rootPId: its parents form a cycle`,
		}},
		{name: "extra repeats a field", change: func(t *Tree) { t.Nodes[0].Extra = map[string]any{"name": "x"} },
			want: []string{`data.nodes[0].name: extra property repeats the standard field "name"`}},
		{name: "extra reads as a misspelling", change: func(t *Tree) { t.Nodes[0].Extra = map[string]any{"lable": "x"} },
			want: []string{`data.nodes[0].lable: extra property reads as a misspelling of the standard field "labels"; rename it`}},
		{name: "extra not JSON", change: func(t *Tree) { t.Nodes[0].Extra = map[string]any{"score": math.NaN()} },
			want: []string{`data.nodes[0].score: extra property cannot be written as JSON: json: unsupported value: NaN`}},
		{name: "nodeType of no node", change: func(t *Tree) { t.NodeActions[0].NodeType = "dirs" },
			want: []string{`data.nodeActions[0].nodeType: no node has type "dirs"; did you mean "dir"?`}},
		{name: "bad gesture", change: func(t *Tree) { t.NodeActions[0].NodeAction = "open" },
			want: []string{`data.nodeActions[0].nodeAction: must be "expand" or "click", got "open"`}},
		{name: "two targets", change: func(t *Tree) { t.NodeActions[0].Command = "c"; t.NodeActions[0].Prompt = "p" },
			want: []string{`data.nodeActions[0]: sets command and prompt; set at most one of command, prompt and promptByNodeProperty`}},
		{name: "three targets", change: func(t *Tree) { t.NodeActions[1].Command = "c"; t.NodeActions[1].Prompt = "p" },
			want: []string{`data.nodeActions[1]: sets command and prompt and promptByNodeProperty; set at most one of command, prompt and promptByNodeProperty`}},
		{name: "repeated gesture", change: func(t *Tree) {
			t.NodeActions = append(t.NodeActions, NodeAction{NodeType: "dir", NodeAction: NodeExpand})
		},
			want: []string{`data.nodeActions[2]: repeats data.nodeActions[0] (nodeType "dir", nodeAction "expand")`}},
		{name: "prompt by a standard text field", change: func(t *Tree) { t.NodeActions[1].PromptByNodeProperty = "description" }},
		{name: "prompt by labels", change: func(t *Tree) { t.NodeActions[1].PromptByNodeProperty = "labels" },
			want: []string{`data.nodeActions[1].promptByNodeProperty: "labels" is a list, not a text that can be a prompt`}},
		{name: "prompt by a missing property", change: func(t *Tree) { t.NodeActions[1].PromptByNodeProperty = "paht" },
			want: []string{`data.nodeActions[1].promptByNodeProperty: node "b" (data.nodes[1]) of type "file" has no property "paht"; did you mean "path"?`}},
		{name: "several problems at once", change: func(t *Tree) {
			t.TreeID = ""
			t.Nodes[1].ID = "a"
			t.NodeActions[0].NodeAction = ""
			t.NodeActions = append(t.NodeActions, NodeAction{NodeType: "img", NodeAction: NodeClick})
		}, want: []string{
			"data.treeId: must not be empty",
			`data.nodes[1].id: duplicate id "a" (also data.nodes[0])`,
			`data.nodeActions[0].nodeAction: must be "expand" or "click", got ""`,
			`data.nodeActions[2].nodeType: no node has type "img" (known: dir, file)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.action
			if tt.change != nil {
				tree := validTree()
				tt.change(tree)
				a = &Action{Kind: KindTree, Tree: tree}
			}
			got := problemLines(a.Validate())
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("problems:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
