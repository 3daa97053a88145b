package tools

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"sync/atomic"
	"testing"

	"github.com/agentgw/agentgw/agent/toolspec"
)

// countingRuntime wraps a registered runtime and counts the calls that
// reach it.
type countingRuntime struct {
	Runtime
	runs atomic.Int32
}

func (c *countingRuntime) Run(ctx context.Context, t *Tool, call Call) (any, error) {
	c.runs.Add(1)
	return c.Runtime.Run(ctx, t, call)
}

// TestUndeclaredRefusedEveryRuntime: for each runtime, a call with an
// undeclared parameter is INVALID_PARAMETERS naming it, and the runtime
// (and so the process, module, server or function) is never reached; the
// same call without it runs.
func TestUndeclaredRefusedEveryRuntime(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	m := NewManager(Config{HTTPAllow: []string{srv.URL}, Builtins: map[string]BuiltinFunc{"b": noop}})
	m.Register(&fakeRuntime{name: "mcp"})
	specs := []struct {
		spec   Spec
		interp string // skip without it
	}{
		{Spec{Runtime: "native", Entry: nativeTool(t), Command: "echo"}, ""},
		{Spec{Runtime: "python", Entry: scriptPath(t, "tool.py"), Command: "echo"}, "python3"},
		{Spec{Runtime: "javascript", Entry: scriptPath(t, "tool.js"), Command: "echo"}, "node"},
		{Spec{Runtime: "wasm", Entry: wasmTool(t), Command: "echo"}, ""},
		{Spec{Runtime: "http", Entry: srv.URL + "/t"}, ""},
		{Spec{Runtime: "builtin", Entry: "b"}, ""},
		{Spec{Runtime: "mcp", Entry: "server"}, ""},
	}
	for _, tc := range specs {
		t.Run(tc.spec.Runtime, func(t *testing.T) {
			if tc.interp != "" {
				if _, err := exec.LookPath(tc.interp); err != nil {
					t.Skipf("%s not installed", tc.interp)
				}
			}
			rt, ok := m.runtime(tc.spec.Runtime)
			if !ok {
				t.Fatalf("no runtime %s", tc.spec.Runtime)
			}
			counting := &countingRuntime{Runtime: rt}
			m := NewManager(Config{HTTPAllow: []string{srv.URL}, Builtins: map[string]BuiltinFunc{"b": noop}})
			m.Register(counting)
			spec := tc.spec
			spec.Name, spec.Description, spec.Parameters = "t_"+spec.Runtime, "d", declare("a")
			tool := mustCompile(t, m, spec, t.TempDir())
			before := hits.Load()
			for _, params := range []map[string]any{
				{"exec": "id"}, {"a": 1.0, "toolexec": "id"}, {"a": 1.0, "--vettool": "/bin/sh"},
			} {
				wantError(t, call(tool, params), toolspec.StatusError, toolspec.CodeInvalidParameters, "not declared by tool "+spec.Name)
			}
			if n := counting.runs.Load(); n != 0 || hits.Load() != before {
				t.Fatalf("the runtime was reached %d times (server hits %d)", n, hits.Load()-before)
			}
			wantSuccess(t, call(tool, map[string]any{"a": 1.0}))
			if counting.runs.Load() != 1 {
				t.Fatalf("a valid call reached the runtime %d times, want 1", counting.runs.Load())
			}
		})
	}
}
