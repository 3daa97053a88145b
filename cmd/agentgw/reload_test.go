package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/internal/syncbuf"
	"github.com/agentgw/agentgw/server"
	"github.com/agentgw/agentgw/tools"
)

// heldRuntime runs tools of runtime "held": a call reports its tool's name
// on started, then waits for release.
type heldRuntime struct {
	started chan string
	release chan struct{}
}

func (heldRuntime) Name() string                        { return "held" }
func (heldRuntime) Check(*tools.Tool) ([]string, error) { return nil, nil }
func (r heldRuntime) Run(ctx context.Context, t *tools.Tool, _ tools.Call) (any, error) {
	r.started <- t.Name
	select {
	case <-r.release:
		return "released", nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TestReloadClosesReplacedTools: a reload closes every tool of the set it
// replaces once (a shared tool too, which each agent holds), a tool with a
// call in flight only when that call has ended, and none of the new set.
func TestReloadClosesReplacedTools(t *testing.T) {
	dir := t.TempDir()
	heldTool := func(name string) string {
		return "  - name: " + name + "\n    description: waits\n    runtime: held\n    entry: x\n"
	}
	for _, name := range []string{"a", "b"} {
		writeFile(t, dir, "agents/"+name+".yaml", "name: "+name+"\ntools:\n"+heldTool(name+"_own")+
			"commands:\n  - name: default\n    reply: ok\n")
	}
	cfg := testConfig(t, "")
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	cfg.Tools.Files = []string{writeFile(t, dir, "tools.yaml", "- name: shared\n  description: waits\n  runtime: held\n  entry: x\n")}
	var logs syncbuf.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ld := newLoader(cfg, envOf(nil), services{}, log)
	rt := heldRuntime{started: make(chan string, 1), release: make(chan struct{})}
	ld.tools.Register(rt)
	set := ld.load(agentSet{}, log)
	reg := program.NewRegistry(set.agents)
	if names := reg.Names(); len(names) != 2 {
		t.Fatalf("agents %v; log:\n%s", names, logs.String())
	}
	held := toolNamed(t, reg, "a", "a_own")
	done := make(chan toolspec.Result, 1)
	go func() { done <- held.Call(context.Background(), tools.Call{ID: "c1"}) }()
	select {
	case <-rt.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not start")
	}
	closed := func(name string) int { return strings.Count(logs.String(), `msg="tool closed" tool=`+name+"\n") }

	reload(reg, ld, set, log)
	for name, want := range map[string]int{"shared": 1, "b_own": 1, "a_own": 0} {
		if got := closed(name); got != want {
			t.Errorf("after the reload, %s closed %d times, want %d", name, got, want)
		}
	}
	close(rt.release)
	if res := <-done; res.Status != toolspec.StatusSuccess || res.Result != "released" {
		t.Fatalf("the call in flight: %+v", res)
	}
	if got := closed("a_own"); got != 1 {
		t.Errorf("after its call, a_own closed %d times, want 1", got)
	}
	if toolNamed(t, reg, "a", "a_own") == held {
		t.Error("the registry still has the old tool")
	}
}

// toolNamed returns the tool named tool of the registry's agent a.
func toolNamed(t *testing.T, reg *program.Registry, a, tool string) *tools.Tool {
	t.Helper()
	ag, ok := reg.Get(a)
	if !ok {
		t.Fatalf("no agent %s", a)
	}
	for _, tl := range ag.Tools() {
		if tl.ToolSpec().Name == tool {
			return tl.(*tools.Tool)
		}
	}
	t.Fatalf("agent %s has no tool %s", a, tool)
	return nil
}

// TestReloadKeepsLastGoodAgent: after a reload with one broken file, the
// agent it defined keeps answering as loaded before, the problem is logged
// with its position and listed on GET /agents, the tools of the kept agent
// stay open (a shared one too); once the file is fixed, the next reload
// serves the new version, lists no problem and closes each old tool once.
func TestReloadKeepsLastGoodAgent(t *testing.T) {
	dir := t.TempDir()
	agentFile := func(name, reply string) string {
		return "name: " + name + "\ntools:\n  - name: " + name + "_own\n    description: waits\n    runtime: held\n    entry: x\n" +
			"commands:\n  - name: default\n    reply: " + reply + "\n"
	}
	aFile := writeFile(t, dir, "agents/a.yaml", agentFile("a", "a v1"))
	writeFile(t, dir, "agents/b.yaml", agentFile("b", "b v1"))
	cfg := testConfig(t, "")
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	cfg.Tools.Files = []string{writeFile(t, dir, "tools.yaml", "- name: shared\n  description: waits\n  runtime: held\n  entry: x\n")}
	var logs syncbuf.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ld := newLoader(cfg, envOf(nil), services{}, log)
	ld.tools.Register(heldRuntime{})
	set := ld.load(agentSet{}, log)
	reg := program.NewRegistry(nil)
	reg.SwapLoaded(set.agents, set.problems)
	gw := httptest.NewServer(server.New(server.Config{Runner: runner.NewRunner(reg, runner.RunnerConfig{})}).Handler())
	defer gw.Close()
	closed := func(name string) int { return strings.Count(logs.String(), `msg="tool closed" tool=`+name+"\n") }
	answer := func(name string) string {
		t.Helper()
		_, events := postAgent(t, gw.URL+"/agents/"+name, `{}`)
		return streamText(t, events)
	}
	problems := func() []server.LoadProblem {
		t.Helper()
		res, err := http.Get(gw.URL + "/agents")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var list server.AgentList
		if err := json.NewDecoder(res.Body).Decode(&list); err != nil {
			t.Fatal(err)
		}
		return list.Problems
	}

	// a breaks (a field misspelt), b changes.
	writeFile(t, dir, "agents/a.yaml", "name: a\ncommands:\n  - name: default\n    replly: a v2\n")
	writeFile(t, dir, "agents/b.yaml", agentFile("b", "b v2"))
	set = reload(reg, ld, set, log)
	if got := answer("a"); got != "a v1" {
		t.Errorf("a answers %q, want its last good version's %q", got, "a v1")
	}
	if got := answer("b"); got != "b v2" {
		t.Errorf("b answers %q, want %q", got, "b v2")
	}
	want := []server.LoadProblem{
		{File: aFile, Line: 1, Column: 1, Severity: "warning", Message: `agent "a" is served as loaded before until the errors in its file are fixed`},
		{File: aFile, Line: 3, Column: 5, Severity: "warning", Message: `command "default": has no reply, messageTemplates, steps or actions; requests for it get an error`},
		{File: aFile, Line: 4, Column: 5, Severity: "error", Message: `agent.commands[0]: unknown field "replly"; did you mean "reply"?`},
	}
	if got := problems(); !reflect.DeepEqual(got, want) {
		t.Errorf("GET /agents problems:\n%+v\nwant:\n%+v", got, want)
	}
	if !strings.Contains(logs.String(), aFile+":4:5: agent.commands[0]: unknown field") {
		t.Errorf("the log does not give the problem's position:\n%s", logs.String())
	}
	for name, want := range map[string]int{"a_own": 0, "shared": 0, "b_own": 1} {
		if got := closed(name); got != want {
			t.Errorf("after the broken reload, %s closed %d times, want %d", name, got, want)
		}
	}

	// a is fixed.
	writeFile(t, dir, "agents/a.yaml", agentFile("a", "a v3"))
	reload(reg, ld, set, log)
	if got := answer("a"); got != "a v3" {
		t.Errorf("a answers %q after the fix, want %q", got, "a v3")
	}
	if got := problems(); len(got) != 0 {
		t.Errorf("problems after the fix: %+v", got)
	}
	// The first a_own and shared, kept with a, and the second shared and
	// b_own, replaced by the third reload, each closed once.
	for name, want := range map[string]int{"a_own": 1, "shared": 2, "b_own": 2} {
		if got := closed(name); got != want {
			t.Errorf("after the fixed reload, %s closed %d times, want %d", name, got, want)
		}
	}
}

// TestReloadDropsRemovedAgent: an agent whose file was removed, or no
// longer defines it, is dropped by a reload: only errors keep a version.
func TestReloadDropsRemovedAgent(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "agents/a.yaml", "name: a\ncommands:\n  - name: default\n    reply: a\n")
	bFile := writeFile(t, dir, "agents/b.yaml", "name: b\ncommands:\n  - name: default\n    reply: b\n")
	cfg := testConfig(t, "")
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	log := slog.New(slog.DiscardHandler)
	ld := newLoader(cfg, envOf(nil), services{}, log)
	set := ld.load(agentSet{}, log)
	reg := program.NewRegistry(set.agents)
	if err := os.Remove(bFile); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "agents/a.yaml", "name: c\ncommands:\n  - name: default\n    reply: c\n")
	reload(reg, ld, set, log)
	if got := reg.Names(); !reflect.DeepEqual(got, []string{"c"}) || len(reg.Problems()) != 0 {
		t.Errorf("agents %v, problems %v; want [c] and none", got, reg.Problems())
	}
}
