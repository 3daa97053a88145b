package runner_test

import (
	"go/build"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: the runner orchestrates the request's phases through
// agent/stage and links the features that own them as little as the
// step kinds' (issue 27 item 1): no knowledge base (its recall is the
// stage knowledge/recallstage), no conversation store (the binding is
// conversation/binding). It keeps paused runs through agent/runstate and
// links no store driver, nor a SQL driver (issue 27 item 3). It holds tools as
// stepkind.Tool and compiles them through LoadOptions.Tools: it links no
// tool runtime (package tools, its WASM engine), only agent/toolspec.
// Remote agents are forwarded through stage.RemoteAgents (package remote
// implements it) and hand-off acceptance is a definition part
// (handoff/accept): the runner links neither remote nor any hand-off
// package. The list grows as phases move out.
func TestDeps(t *testing.T) {
	deptest.Forbid(t, deptest.Module+"/agent/runner",
		deptest.Module+"/knowledge/...",
		deptest.Module+"/conversation/...",
		deptest.Module+"/remote/...",
		deptest.Module+"/handoff/...",
		deptest.Module+"/tools",
		deptest.Module+"/tools/toolload",
		deptest.Module+"/tools/toolstep",
		"github.com/tetratelabs/wazero/...",
		deptest.Module+"/store/sqlitestore",
		deptest.Module+"/store/pgstore",
		"github.com/jackc/pgx/v5/...",
		"modernc.org/sqlite/...")
}

// TestImports: the runner's own files import no feature package, only
// its vocabulary and the seams features plug in through: what a request
// is (agent/request), what a command is (agent/program, agent, tmpl,
// toolspec, stepkind), how the phases plug in (agent/stage), how what
// runs inside a run reaches the gateway's agents (agent/dispatch), the prompt,
// the emitter, what a run keeps between requests (agent/runstate, over a
// KV its caller hands it), and the plan engine that runs a command's
// steps. Conversations, knowledge, remote agents, hand-offs, tools,
// stores and schedules reach it through those seams, registered in
// cmd/agentgw (issue 27 item 1).
func TestImports(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	allowed := []string{
		"actions", "agent", "agent/dispatch", "agent/emit", "agent/program", "agent/prompt", "agent/request", "agent/runstate",
		"agent/stage", "agent/stepkind", "agent/tmpl", "agent/toolspec", "apierr", "contextvars", "internal/...",
		"llm", "observe", "plan",
	}
	for i, a := range allowed {
		allowed[i] = deptest.Module + "/" + a
	}
	for _, imp := range pkg.Imports {
		if strings.HasPrefix(imp, deptest.Module+"/") && !deptest.Allowed(imp, allowed) {
			t.Errorf("agent/runner imports %s, a feature package: plug it in through agent/stage, a step kind or a definition part", imp)
		}
	}
}
