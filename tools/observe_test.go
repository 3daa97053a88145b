package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/observe/observetest"
)

// TestCallObserved: each call reports its tool, runtime, status and code
// to the request's observers, a panic and an invalid call included.
func TestCallObserved(t *testing.T) {
	rec := &observetest.Recorder{}
	ctx, w := observe.Observers{rec}.Begin(context.Background(), &observe.Request{Source: observe.SourceInternal})
	m := builtinManager()
	for _, entry := range []string{"git_status", "coded", "panics"} {
		tool := mustCompile(t, m, Spec{Name: "b_" + entry, Runtime: "builtin", Entry: entry,
			Parameters: map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}}}, t.TempDir())
		tool.Call(ctx, Call{ID: "c1", Parameters: map[string]any{}})
		if entry == "git_status" {
			tool.Call(ctx, Call{ID: "c2", Parameters: map[string]any{"n": "x"}})
		}
	}
	w.End(observe.Outcome{})
	want := []string{
		"begin internal ",
		"tool b_git_status runtime=builtin", "tool b_git_status end SUCCESS code=",
		"tool b_git_status runtime=builtin", "tool b_git_status end ERROR code=INVALID_PARAMETERS",
		"tool b_coded runtime=builtin", "tool b_coded end ERROR code=NOT_ALLOWED",
		"tool b_panics runtime=builtin", "tool b_panics end ERROR code=TOOL_FAILED",
		"end ok code= status=0",
	}
	if got := rec.Events(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
