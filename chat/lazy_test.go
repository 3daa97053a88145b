package chat

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/golden"
)

const (
	lazySrc  = `{"id":"src","pId":"0","type":"dir","name":"src"}`
	lazyDocs = `{"id":"docs","pId":"0","type":"dir","name":"docs"}`
	lazyMain = `{"id":"main","pId":"src","type":"file","name":"main.go","labels":["go"]}`
	lazyUtil = `{"id":"util","pId":"src","type":"dir","name":"util"}`
)

var (
	// lazyRoot is the first level of a lazy tree: two directories to expand
	// or click.
	lazyRoot = textFrame("Files:") +
		actionFrame(`{"action":"tree","state":"t1","data":{"treeId":"files","rootPId":"0","nodes":[`+lazySrc+`,`+lazyDocs+`],`+
			`"nodeActions":[{"nodeType":"dir","nodeAction":"expand"},{"nodeType":"dir","nodeAction":"click"}]}}`) +
		stopFrame + doneFrame
	// lazySrcChildren answers expanding src: its children, a new node type
	// with its own gesture, and a new (non-string) state.
	lazySrcChildren = textFrame("Loaded src.") +
		actionFrame(`{"action":"tree","state":{"page":2},"data":{"treeId":"files","rootPId":"src","nodes":[`+lazyMain+`,`+lazyUtil+`],`+
			`"nodeActions":[{"nodeType":"file","nodeAction":"click"},{"nodeType":"dir","nodeAction":"expand"}]}}`) +
		stopFrame + doneFrame
	// lazyUtilChildren answers expanding util, a node merged in before.
	lazyUtilChildren = strings.NewReplacer("Loaded src.", "Loaded util.", `"pId":"src"`, `"pId":"util"`, `"id":"`, `"id":"u`).
				Replace(lazySrcChildren)
	// lazyOther is an answer with another tree.
	lazyOther = textFrame("Elsewhere.") +
		actionFrame(`{"action":"tree","state":"o1","data":{"treeId":"other","rootPId":"","nodes":[{"id":"x","pId":"","type":"leaf","name":"x"}],`+
			`"nodeActions":[{"nodeType":"leaf","nodeAction":"click"}]}}`) +
		stopFrame + doneFrame
	// lazyFresh is a whole new version of tree files.
	lazyFresh = textFrame("Refreshed.") +
		actionFrame(`{"action":"tree","state":"t2","data":{"treeId":"files","rootPId":"0","nodes":[{"id":"a","pId":"0","type":"file","name":"a.go"}],`+
			`"nodeActions":[{"nodeType":"file","nodeAction":"click"}]}}`) +
		stopFrame + doneFrame
)

func TestChatLazyTree(t *testing.T) {
	dir := newTourDir(t)
	tests := []struct {
		name, stdin, golden string
		answers             []string
		// actions are the "action" members of the requests after the first.
		actions []string
	}{
		{
			name: "expand merges the children under their parent", stdin: "1\n3\n", golden: "lazy_merge.golden",
			answers: []string{lazyRoot, lazySrcChildren, plainAnswer},
			actions: []string{
				`{"action":"tree","state":"t1","treeId":"files","nodeId":"src","nodeAction":"expand","node":` + lazySrc + `}`,
				`{"action":"tree","state":{"page":2},"treeId":"files","nodeId":"main","nodeAction":"click","node":` + lazyMain + `}`,
			},
		},
		{
			name: "expanding a merged node merges again", stdin: "1\n4\n6\n", golden: "lazy_merge_twice.golden",
			answers: []string{lazyRoot, lazySrcChildren, lazyUtilChildren, plainAnswer},
			actions: []string{
				`{"action":"tree","state":"t1","treeId":"files","nodeId":"src","nodeAction":"expand","node":` + lazySrc + `}`,
				`{"action":"tree","state":{"page":2},"treeId":"files","nodeId":"util","nodeAction":"expand","node":` + lazyUtil + `}`,
				`{"action":"tree","state":{"page":2},"treeId":"files","nodeId":"umain","nodeAction":"click","node":` +
					`{"id":"umain","pId":"util","type":"file","name":"main.go","labels":["go"]}}`,
			},
		},
		{
			name: "another treeId replaces the choices", stdin: "1\n", golden: "lazy_other.golden",
			answers: []string{lazyRoot, lazyOther},
			actions: []string{`{"action":"tree","state":"t1","treeId":"files","nodeId":"src","nodeAction":"expand","node":` + lazySrc + `}`},
		},
		{
			name: "a click's answer with the same treeId replaces the tree", stdin: "2\n", golden: "lazy_click.golden",
			answers: []string{lazyRoot, lazyFresh},
			actions: []string{`{"action":"tree","state":"t1","treeId":"files","nodeId":"src","nodeAction":"click","node":` + lazySrc + `}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, rec := newScriptedGateway(t, tourDefinition, tt.answers...)
			code, stdout, stderr := runChat(t, tt.stdin, "--url", url, "--agent", "tour", "--dir", dir, "--interactive")
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			golden.Check(t, "testdata/"+tt.golden, []byte(stdout))
			reqs := rec.All()
			if len(reqs) != len(tt.actions)+1 {
				t.Fatalf("%d requests, want %d", len(reqs), len(tt.actions)+1)
			}
			for i, want := range tt.actions {
				// Every feedback is the tree's request (the first) plus the action.
				checkFeedback(t, reqs[0], reqs[i+1], want)
			}
		})
	}
}

// BenchmarkLazyTree merges a thousand children into a thousand-node tree
// and draws the choices.
func BenchmarkLazyTree(b *testing.B) {
	tree := func(parent, prefix string) wireAction {
		var nodes []string
		for i := range 1000 {
			nodes = append(nodes, fmt.Sprintf(`{"id":"%s%d","pId":%q,"type":"dir","name":"n%d"}`, prefix, i, parent, i))
		}
		r := &streamRenderer{out: io.Discard, keep: true}
		r.action([]byte(`{"action":"tree","state":"s","data":{"treeId":"t","rootPId":"0","nodes":[` + strings.Join(nodes, ",") +
			`],"nodeActions":[{"nodeType":"dir","nodeAction":"expand"}]}}`))
		return r.actions[0]
	}
	root, children := tree("0", "r"), tree("r7", "c")
	shown := nextRound([]wireAction{root}, nil, nil)
	b.ReportAllocs()
	for b.Loop() {
		picked := &choice{from: shown[0], expand: true}
		next := nextRound([]wireAction{children}, nil, picked)
		if m := showChoices(io.Discard, next); len(m.choices) != 2000 {
			b.Fatalf("%d choices", len(m.choices))
		}
	}
}
