package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/chat/chattest"
)

// repoBody is a request to the repo agent for repository proj, with the
// feedback action (JSON) when it is not "".
func repoBody(action string) string {
	body := `{"contextVariables":[{"name":"userInputPrompt","value":"proj"}]`
	if action != "" {
		body += `,"action":` + action
	}
	return body + "}"
}

// nodeFeedback is a tree feedback object for node n of tree files.
func nodeFeedback(state json.RawMessage, gesture string, n wireNode) string {
	node, _ := json.Marshal(n)
	return fmt.Sprintf(`{"action":"tree","state":%s,"treeId":"files","nodeId":%q,"nodeAction":%q,"node":%s}`, state, n.ID, gesture, node)
}

// nodeNamed finds a node of a tree action by id.
func nodeNamed(t *testing.T, a sentAction, id string) wireNode {
	t.Helper()
	for _, n := range a.Data.Nodes {
		if n.ID == id {
			return n
		}
	}
	t.Fatalf("no node %q in %s", id, a.nodeList())
	return wireNode{}
}

// bytesOf is a file node's description.
func bytesOf(content string) string { return fmt.Sprintf("%d bytes", len(content)) }

// TestRepoAgentTree browses the origin with the repo agent: the top level,
// a directory expanded, one of its children expanded (feedback on a batch),
// a file clicked and explained by the model.
func TestRepoAgentTree(t *testing.T) {
	model := newModelFake(t)
	cfg, _ := gitConfig(t, model.URL(), newOrigin(t))
	url := startGateway(t, cfg, nil) + "/agents/repo"

	root := ask(t, url, repoBody("")).only(t)
	wantRoot := strings.Join([]string{
		"cmd</:dir:cmd:", "docs</:dir:docs:", "internal</:dir:internal:",
		"README.md</:file:README.md:" + bytesOf(mainLater), "go.mod</:file:go.mod:" + bytesOf(originMain["go.mod"]),
	}, "\n")
	if root.Action != "tree" || root.Data.TreeID != "files" || root.Data.RootPID != "/" {
		t.Fatalf("root action %+v", root)
	}
	// The nodes' ids and types are what the handlers need; the sizes are
	// checked separately so that they do not hide the rest.
	if got := stripDescriptions(root.nodeList()); got != stripDescriptions(wantRoot) {
		t.Fatalf("root nodes:\n%s\nwant:\n%s", got, wantRoot)
	}
	if got := root.nodeList(); got != wantRoot {
		t.Errorf("root node descriptions:\n%s\nwant:\n%s", got, wantRoot)
	}
	if got := jsonOf(root.Data.NodeActions); got != `[{"nodeType":"dir","nodeAction":"expand"},{"nodeType":"file","nodeAction":"click"}]` {
		t.Errorf("nodeActions %s", got)
	}

	internal := ask(t, url, repoBody(nodeFeedback(root.State, "expand", nodeNamed(t, root, "internal")))).only(t)
	if internal.Data.TreeID != "files" || internal.Data.RootPID != "internal" || stripDescriptions(internal.nodeList()) != "internal/calc<internal:dir:calc:" {
		t.Fatalf("internal's children: %+v\n%s", internal, internal.nodeList())
	}
	// A node of the batch: its feedback reaches the same onExpand.
	calc := ask(t, url, repoBody(nodeFeedback(internal.State, "expand", nodeNamed(t, internal, "internal/calc")))).only(t)
	wantCalc := "internal/calc/add.go<internal/calc:file:add.go:" + bytesOf(originMain["internal/calc/add.go"]) + "\n" +
		"internal/calc/add_test.go<internal/calc:file:add_test.go:" + bytesOf(originMain["internal/calc/add_test.go"])
	if calc.Data.TreeID != "files" || calc.Data.RootPID != "internal/calc" || stripDescriptions(calc.nodeList()) != stripDescriptions(wantCalc) {
		t.Fatalf("calc's children: %+v\n%s", calc, calc.nodeList())
	}

	clicked := ask(t, url, repoBody(nodeFeedback(calc.State, "click", nodeNamed(t, calc, "internal/calc/add.go"))))
	if e := clicked.errorFrame(); e != nil || len(clicked.actions(t)) != 0 {
		t.Fatalf("click: error %+v, actions %d", e, len(clicked.actions(t)))
	}
	if want := strings.Join(explainChunks, ""); clicked.text != want {
		t.Errorf("click text %q, want %q", clicked.text, want)
	}
	calls := model.Requests()
	if len(calls) != 1 || !calls[0].Stream {
		t.Fatalf("%d model calls, want one streamed", len(calls))
	}
	prompt := promptLines(calls[0])
	for _, want := range []string{"Explain internal/calc/add.go:", originMain["internal/calc/add.go"]} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the model's prompt lacks %q:\n%s", want, prompt)
		}
	}
}

// stripDescriptions cuts the description off nodeList lines.
func stripDescriptions(list string) string {
	lines := strings.Split(list, "\n")
	for i, l := range lines {
		if j := strings.LastIndexByte(l, ':'); j >= 0 {
			lines[i] = l[:j+1]
		}
	}
	return strings.Join(lines, "\n")
}

// TestRepoAgentChat does the same with agentgw chat --interactive: expand
// internal, then calc, then click add.go.
func TestRepoAgentChat(t *testing.T) {
	ws := chattest.NewWorkspace(t)
	model := newModelFake(t)
	cfg, _ := gitConfig(t, model.URL(), newOrigin(t))
	gw := startGateway(t, cfg, nil)
	code, stdout, stderr := runChat(t, "3\n4\n5\n", "--url", gw, "--agent", "repo", "--dir", ws.Dir, "--interactive", "proj")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q\n%s", code, stderr, stdout)
	}
	readme, gomod := bytesOf(mainLater), bytesOf(originMain["go.mod"])
	add, addTest := bytesOf(originMain["internal/calc/add.go"]), bytesOf(originMain["internal/calc/add_test.go"])
	want := "\n" +
		"  tree files:\n" +
		"    1) expand  cmd (dir) → sends feedback\n" +
		"    2) expand  docs (dir) → sends feedback\n" +
		"    3) expand  internal (dir) → sends feedback\n" +
		"    4) click  README.md (file): " + readme + " → sends feedback\n" +
		"    5) click  go.mod (file): " + gomod + " → sends feedback\n" +
		"  q) quit\n" +
		"> 3\n" +
		"\n" +
		"  tree files:\n" +
		"    1) expand  cmd (dir) → sends feedback\n" +
		"    2) expand  docs (dir) → sends feedback\n" +
		"    3) expand  internal (dir) → sends feedback\n" +
		"      4) expand  calc (dir) → sends feedback\n" +
		"    5) click  README.md (file): " + readme + " → sends feedback\n" +
		"    6) click  go.mod (file): " + gomod + " → sends feedback\n" +
		"  q) quit\n" +
		"> 4\n" +
		"\n" +
		"  tree files:\n" +
		"    1) expand  cmd (dir) → sends feedback\n" +
		"    2) expand  docs (dir) → sends feedback\n" +
		"    3) expand  internal (dir) → sends feedback\n" +
		"      4) expand  calc (dir) → sends feedback\n" +
		"        5) click  add.go (file): " + add + " → sends feedback\n" +
		"        6) click  add_test.go (file): " + addTest + " → sends feedback\n" +
		"    7) click  README.md (file): " + readme + " → sends feedback\n" +
		"    8) click  go.mod (file): " + gomod + " → sends feedback\n" +
		"  q) quit\n" +
		"> 5\n" +
		strings.Join(explainChunks, "") + "\n"
	if stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
	if calls := model.Requests(); len(calls) != 1 || !strings.Contains(promptLines(calls[0]), originMain["internal/calc/add.go"]) {
		t.Errorf("model calls %+v, want one explaining add.go", calls)
	}
}

// TestRepoAgentWithoutRepositories: without git.repositories the answer is
// an in-stream error that says where to configure them.
func TestRepoAgentWithoutRepositories(t *testing.T) {
	model := newModelFake(t)
	url := startGateway(t, testConfig(t, model.URL()), nil) + "/agents/repo"
	a := ask(t, url, repoBody(""))
	e := a.errorFrame()
	if e == nil || !strings.Contains(e.Message, "git.repositories") {
		t.Fatalf("error %+v, want one mentioning git.repositories; events %v", e, a.events)
	}
	if len(a.actions(t)) != 0 || a.text != "" {
		t.Errorf("actions %d, text %q", len(a.actions(t)), a.text)
	}
}
