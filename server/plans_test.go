package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/store"
)

// withStore keeps plan state for the actions' handlers, as serve does.
func withStore() option {
	return withRunner(func(c *runner.RunnerConfig) { c.Store = store.NewMemory() })
}

// wireTree is the data of a tree action as the plugin reads it.
type wireTree struct {
	TreeID  string `json:"treeId"`
	RootPID string `json:"rootPId"`
	Nodes   []struct {
		ID   string `json:"id"`
		PID  string `json:"pId"`
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"nodes"`
	NodeActions []struct {
		NodeType   string `json:"nodeType"`
		NodeAction string `json:"nodeAction"`
	} `json:"nodeActions"`
}

// nodes lists the tree's nodes as "id<pId:type:name".
func (w wireTree) nodes() string {
	var out []string
	for _, n := range w.Nodes {
		out = append(out, n.ID+"<"+n.PID+":"+n.Type+":"+n.Name)
	}
	return strings.Join(out, " ")
}

// onlyAction returns the one action of s, failing on an error frame or
// another number of actions.
func onlyAction(t *testing.T, s stream) frame {
	t.Helper()
	if errs := s.of("error"); len(errs) > 0 {
		t.Fatalf("error frame: %s", errs[0].data)
	}
	acts := s.of("action")
	if len(acts) != 1 {
		t.Fatalf("%d actions, want 1: %v", len(acts), s.kinds())
	}
	return acts[0]
}

// treeOf decodes a tree action's data.
func treeOf(t *testing.T, f frame) wireTree {
	t.Helper()
	if f.action.Action != "tree" {
		t.Fatalf("action %q, want tree: %s", f.action.Action, f.data)
	}
	var w wireTree
	if err := json.Unmarshal(f.action.Data, &w); err != nil {
		t.Fatal(err)
	}
	return w
}

// treeFeedback is a tree feedback body echoing state.
func treeFeedback(state json.RawMessage, treeID, nodeID, gesture, node string) string {
	return sprintf(`{"action":{"action":"tree","state":%s,"treeId":%q,"nodeId":%q,"nodeAction":%q,"node":%s}}`,
		state, treeID, nodeID, gesture, node)
}

// confirmFeedback is a confirm feedback body echoing state.
func confirmFeedback(state json.RawMessage, accepted bool) string {
	return sprintf(`{"action":{"action":"confirm","state":%s,"accepted":%v}}`, state, accepted)
}

// TestPlanConfirmHandlers: the confirm a plan step sends, accepted, runs
// the inline onAccept steps with the state the plan saved; dismissed, the
// command onDismiss names. All through HTTP and the SSE reader.
func TestPlanConfirmHandlers(t *testing.T) {
	t.Parallel()
	gw := newGateway(t, withStore())
	s := readStream(t, post(t, gw.URL+"/agents/planner", `{}`), "[DONE]")
	confirm := onlyAction(t, s)
	if confirm.action.Action != "confirm" || string(confirm.action.Data) != `{"title":"Show 3 files","message":"Shows what the plan saved"}` {
		t.Fatalf("confirm %s", confirm.data)
	}
	if got := strings.Join(s.kinds(), " "); got != "action chunk done" {
		t.Errorf("frames %s, want the action and the end frames", got)
	}
	tests := []struct {
		name, body, want string
	}{
		{"accept", confirmFeedback(confirm.action.State, true), "accepted: kept for the handler; a.go,b.go,c.go; true"},
		{"accept without accepted", sprintf(`{"action":{"action":"confirm","state":%s}}`, confirm.action.State),
			"accepted: kept for the handler; a.go,b.go,c.go; true"},
		{"dismiss", confirmFeedback(confirm.action.State, false), "bye from bye, accepted=false"},
		{"accept again", confirmFeedback(confirm.action.State, true), "accepted: kept for the handler; a.go,b.go,c.go; true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := readStream(t, post(t, gw.URL+"/agents/planner", tt.body), "[DONE]")
			if len(s.of("error")) > 0 || len(s.of("action")) > 0 {
				t.Fatalf("frames %v: %s", s.kinds(), s.frames[0].data)
			}
			if got := s.text(); got != tt.want {
				t.Errorf("text %q, want %q", got, tt.want)
			}
		})
	}
}

// TestPlanConfirmWithoutStore: without a store the handler starts from an
// empty state, and says so by rendering nothing for it.
func TestPlanConfirmWithoutStore(t *testing.T) {
	t.Parallel()
	gw := newGateway(t)
	confirm := onlyAction(t, readStream(t, post(t, gw.URL+"/agents/planner", `{}`), "[DONE]"))
	s := readStream(t, post(t, gw.URL+"/agents/planner", confirmFeedback(confirm.action.State, true)), "[DONE]")
	if got := s.text(); got != "accepted: ; ; true" {
		t.Errorf("text %q", got)
	}
}

// TestPlanLazyTree: expanding a node answers a batch of its children with
// the same treeId, rootPId the node; the batch's own nodes reach the same
// handlers (expand again, click).
func TestPlanLazyTree(t *testing.T) {
	t.Parallel()
	gw := newGateway(t, withStore())
	url := gw.URL + "/agents/planner"
	root := onlyAction(t, readStream(t, post(t, url, `{"command":"tree"}`), "[DONE]"))
	if w := treeOf(t, root); w.TreeID != "files" || w.RootPID != "0" || w.nodes() != "src<0:dir:src README.md<0:file:README.md" {
		t.Fatalf("root tree %s", root.data)
	}

	s := readStream(t, post(t, url, treeFeedback(root.action.State, "files", "src", "expand", `{"id":"src","pId":"0","type":"dir","name":"src"}`)), "[DONE]")
	batch := onlyAction(t, s)
	w := treeOf(t, batch)
	if w.TreeID != "files" || w.RootPID != "src" || w.nodes() != "src/sub<src:dir:sub src/main.go<src:file:main.go in src" || len(w.NodeActions) != 2 {
		t.Fatalf("children %s", batch.data)
	}
	if string(batch.action.State) == string(root.action.State) {
		t.Errorf("the batch reuses the root's state")
	}

	// The batch's nodes go to the tree's handlers.
	s = readStream(t, post(t, url, treeFeedback(batch.action.State, "files", "src/sub", "expand", `{"id":"src/sub","pId":"src","type":"dir","name":"sub"}`)), "[DONE]")
	grand := onlyAction(t, s)
	if w := treeOf(t, grand); w.TreeID != "files" || w.RootPID != "src/sub" || w.nodes() != "src/sub/sub<src/sub:dir:sub src/sub/main.go<src/sub:file:main.go in sub" {
		t.Fatalf("grandchildren %s", grand.data)
	}
	clicks := []struct {
		state      json.RawMessage
		node, name string
		want       string
	}{
		{root.action.State, "README.md", "README.md", "opened README.md (README.md)"},
		{batch.action.State, "src/main.go", "main.go in src", "opened src/main.go (main.go in src)"},
		{grand.action.State, "src/sub/main.go", "main.go in sub", "opened src/sub/main.go (main.go in sub)"},
	}
	for _, c := range clicks {
		node := sprintf(`{"id":%q,"type":"file","name":%q}`, c.node, c.name)
		s := readStream(t, post(t, url, treeFeedback(c.state, "files", c.node, "click", node)), "[DONE]")
		if got := s.text(); got != c.want || len(s.of("action")) != 0 || len(s.of("error")) != 0 {
			t.Errorf("click %s: text %q frames %v, want %q", c.node, got, s.kinds(), c.want)
		}
	}
}

// TestPlanCommandHandlerBatch: a tree's onExpand names a command, whose
// batch of children extends the tree; a click on a node of that batch runs
// the tree's onClick steps with the state of the plan that sent the tree,
// as a click on the tree's own nodes does.
func TestPlanCommandHandlerBatch(t *testing.T) {
	t.Parallel()
	gw := newGateway(t, withStore())
	url := gw.URL + "/agents/planner"
	root := onlyAction(t, readStream(t, post(t, url, `{"command":"cmdtree"}`), "[DONE]"))
	node := `{"id":"a","pId":"0","type":"dir","name":"a"}`
	s := readStream(t, post(t, url, treeFeedback(root.action.State, "cmds", "a", "click", node)), "[DONE]")
	if got := s.text(); got != "clicked a of the plan" {
		t.Fatalf("click on the tree's node: %q", got)
	}
	batch := onlyAction(t, readStream(t, post(t, url, treeFeedback(root.action.State, "cmds", "a", "expand", node)), "[DONE]"))
	if w := treeOf(t, batch); w.TreeID != "cmds" || w.RootPID != "a" || w.nodes() != "a/b<a:dir:b" {
		t.Fatalf("batch %s", batch.data)
	}
	s = readStream(t, post(t, url, treeFeedback(batch.action.State, "cmds", "a/b", "click", `{"id":"a/b","pId":"a","type":"dir","name":"b"}`)), "[DONE]")
	if got := s.text(); got != "clicked a/b of the plan" {
		t.Errorf("click on the batch's node: %q, want %q (the tree's plan state)", got, "clicked a/b of the plan")
	}
	// Expanding a node of the batch runs the command again.
	grand := onlyAction(t, readStream(t, post(t, url, treeFeedback(batch.action.State, "cmds", "a/b", "expand", `{"id":"a/b","pId":"a","type":"dir","name":"b"}`)), "[DONE]"))
	if w := treeOf(t, grand); w.RootPID != "a/b" || w.nodes() != "a/b/b<a/b:dir:b" {
		t.Errorf("grandchildren %s", grand.data)
	}
}
