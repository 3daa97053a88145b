package openaiapi

import (
	"testing"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/emit"
)

// TestMarkdown: each action as the Markdown that ends an answer.
func TestMarkdown(t *testing.T) {
	tests := []struct {
		name  string
		acts  []*actions.Action
		calls []*emit.ToolCallFrame
		want  string
	}{
		{
			name: "a feedback confirm, markup escaped",
			acts: []*actions.Action{{Kind: actions.KindConfirm, Confirm: &actions.Confirm{Title: "Apply *all* fixes", Message: "Writes [3] files\nto disk"}}},
			want: "\n**Apply \\*all\\* fixes**: Writes \\[3\\] files to disk (a button of the IDE plugins; it cannot be clicked here)\n",
		},
		{
			name: "a command confirm with a backtick",
			acts: []*actions.Action{{Kind: actions.KindConfirm, Confirm: &actions.Confirm{Title: "Run", Command: "te`st"}}},
			want: "\n**Run** (runs the command `te'st`: the model `a/te'st` here)\n",
		},
		{
			name: "a tree: nested, a cycle and strays left out, depth capped",
			acts: []*actions.Action{{Kind: actions.KindTree, Tree: &actions.Tree{TreeID: "t", RootPID: "", Nodes: []actions.Node{
				{ID: "x", PID: "y", Name: "stray x"}, {ID: "y", PID: "x", Name: "stray y"},
				{ID: "1", PID: "", Name: "one"}, {ID: "2", PID: "1", Name: "two"}, {ID: "3", PID: "2", Name: "three"},
				{ID: "4", PID: "", Name: "four", Description: "the\nlast", Labels: []string{"a`b"}},
			}}}},
			want: "\n- **one**\n  - **two**\n    - **three**\n- **four**: the last `a'b`\n",
		},
		{
			name:  "a frontend tool call",
			calls: []*emit.ToolCallFrame{{Name: "read_file", Parameters: map[string]any{"path": "a.go"}}},
			want:  "\n> The agent asked the IDE to run the tool `read_file` with `{\"path\":\"a.go\"}`; this client cannot, so the answer ends here.\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := markdown("a", tc.acts, tc.calls); got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
	// A chain deeper than maxDepth stays at maxDepth.
	var nodes []actions.Node
	pid := ""
	for i := range maxDepth + 3 {
		id := string(rune('a' + i))
		nodes = append(nodes, actions.Node{ID: id, PID: pid, Name: id})
		pid = id
	}
	got := markdown("a", []*actions.Action{{Kind: actions.KindTree, Tree: &actions.Tree{Nodes: nodes}}}, nil)
	if want := "                        - **o**\n"; len(got) < len(want) || got[len(got)-len(want):] != want {
		t.Errorf("the deepest node: %q", got[max(0, len(got)-80):])
	}
}
