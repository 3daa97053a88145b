package runner_test

import (
	"go/build"
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

// TestImports: the runner's own files import no store: what a run keeps
// between requests, its keys, encodings and the store's errors, is
// agent/runstate's, over a KV the runner's caller hands it (runstate
// itself links package store, for its ErrNotFound and Counter).
func TestImports(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if deptest.Allowed(imp, []string{deptest.Module + "/store/..."}) {
			t.Errorf("agent/runner imports %s; it keeps runs through agent/runstate", imp)
		}
	}
}
