package main

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/internal/syncbuf"
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
	ld := newLoader(cfg, envOf(nil), nil, nil, log)
	rt := heldRuntime{started: make(chan string, 1), release: make(chan struct{})}
	ld.tools.Register(rt)
	set := ld.load(log)
	reg := agent.NewRegistry(set.agents)
	if names := reg.Names(); len(names) != 2 {
		t.Fatalf("agents %v; log:\n%s", names, logs.String())
	}
	held := toolNamed(t, reg, "a", "a_own")
	done := make(chan tools.Result, 1)
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
	if res := <-done; res.Status != tools.StatusSuccess || res.Result != "released" {
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
func toolNamed(t *testing.T, reg *agent.Registry, a, tool string) *tools.Tool {
	t.Helper()
	ag, ok := reg.Get(a)
	if !ok {
		t.Fatalf("no agent %s", a)
	}
	for _, tl := range ag.Tools() {
		if tl.Name == tool {
			return tl
		}
	}
	t.Fatalf("agent %s has no tool %s", a, tool)
	return nil
}
