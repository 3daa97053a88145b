//go:build unix

package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent/toolspec"
)

func TestTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	_, pyErr := exec.LookPath("python3")
	tests := []struct {
		name string
		spec func(t *testing.T) Spec
	}{
		{"native", func(t *testing.T) Spec {
			return nativeSpec(t, "spawn")
		}},
		{"python", func(t *testing.T) Spec {
			if pyErr != nil {
				t.Skip("python3 not installed: the python runtime cannot be tested here")
			}
			return Spec{Name: "py_spawn", Runtime: "python", Entry: scriptPath(t, "tool.py"), Command: "spawn"}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			spec := tc.spec(t)
			spec.Parameters = declare("pidfile")
			// The tool must start, spawn its child and write both pids
			// before its timeout: a Python start took over 3s on a loaded
			// CI machine, so the timeout leaves it 10s.
			spec.Timeout = 10 * time.Second
			tool := mustCompile(t, NewManager(Config{}), spec, dir)
			pidfile := filepath.Join(dir, "pids")
			res := call(tool, map[string]any{"pidfile": pidfile})
			wantError(t, res, toolspec.StatusTimeout, toolspec.CodeTimeout, "timed out after 10s")
			pids := readPids(t, pidfile)
			if len(pids) != 2 {
				t.Fatalf("pids %v, want parent and child", pids)
			}
			waitGone(t, pids)
		})
	}
}

func TestCancelKillsProcessGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := nativeSpec(t, "spawn")
	spec.Parameters = declare("pidfile")
	tool := mustCompile(t, NewManager(Config{}), spec, dir)
	pidfile := filepath.Join(dir, "pids")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan toolspec.Result, 1)
	go func() { done <- tool.Call(ctx, Call{ID: "c", Parameters: map[string]any{"pidfile": pidfile}}) }()
	pids := readPids(t, pidfile)
	cancel()
	res := <-done
	wantError(t, res, toolspec.StatusError, toolspec.CodeCanceled)
	waitGone(t, pids)
	if _, err := os.Stat(pidfile); err != nil {
		t.Fatal(err)
	}
}
