package tools

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/toolspec"
)

// needInterpreter skips the test when the interpreter is not installed.
func needInterpreter(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s not installed: the runtime that needs it cannot be tested here (CI installs it)", name)
	}
}

func TestStdioRuntimes(t *testing.T) {
	t.Parallel()
	langs := []struct{ runtime, interp, script string }{
		{"python", "python3", "tool.py"},
		{"javascript", "node", "tool.js"},
	}
	for _, lang := range langs {
		t.Run(lang.runtime, func(t *testing.T) {
			needInterpreter(t, lang.interp)
			m := NewManager(Config{})
			spec := func(cmd string) Spec {
				return Spec{Name: "s_" + cmd, Description: "d", Runtime: lang.runtime,
					Entry: scriptPath(t, lang.script), Command: cmd, Args: []string{"--flag", "x y"}, Parameters: declare("n", "s")}
			}
			t.Run("json", func(t *testing.T) {
				res := call(mustCompile(t, m, spec("echo"), t.TempDir()), map[string]any{"n": 14.0, "s": "é"})
				wantSuccess(t, res)
				want := map[string]any{"command": "echo", "parameters": map[string]any{"n": 14.0, "s": "é"},
					"argv": []any{"--flag", "x y"}}
				if !reflect.DeepEqual(res.Result, want) {
					t.Errorf("result %#v, want %#v", res.Result, want)
				}
			})
			t.Run("text", func(t *testing.T) {
				res := call(mustCompile(t, m, spec("text"), t.TempDir()), nil)
				wantSuccess(t, res)
				if s, _ := res.Result.(string); !strings.HasPrefix(s, "plain text from") || s != strings.TrimSpace(s) {
					t.Errorf("result %q, want trimmed text", res.Result)
				}
			})
			t.Run("failure", func(t *testing.T) {
				res := call(mustCompile(t, m, spec("fail"), t.TempDir()), nil)
				wantError(t, res, toolspec.StatusError, toolspec.CodeToolFailed, "exit status 3", "broke")
			})
		})
	}
}

func TestStdioOutputTooLarge(t *testing.T) {
	t.Parallel()
	needInterpreter(t, "python3")
	spec := Spec{Name: "big", Runtime: "python", Entry: scriptPath(t, "tool.py"), Command: "big", MaxOutputBytes: 64, Parameters: declare("n")}
	tool := mustCompile(t, NewManager(Config{}), spec, t.TempDir())
	wantError(t, call(tool, map[string]any{"n": 1000}), toolspec.StatusError, toolspec.CodeOutputTooLarge, "64 bytes")
	res := call(tool, map[string]any{"n": 3})
	wantSuccess(t, res)
	if want := []any{1.0, 1.0, 1.0, 1.0}; !reflect.DeepEqual(res.Result, want) {
		t.Errorf("result %v, want %v", res.Result, want)
	}
}

func TestStdioMissingInterpreter(t *testing.T) {
	t.Parallel()
	m := NewManager(Config{Python: "no-such-python-for-tools-test"})
	spec := Spec{Name: "p", Description: "d", Runtime: "python", Entry: "missing.py"}
	tool, warns, err := m.Compile(spec, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 2 || !strings.Contains(warns[0], "interpreter") || !strings.Contains(warns[1], "missing.py") {
		t.Errorf("warnings %q, want the interpreter and the script", warns)
	}
	wantError(t, call(tool, nil), toolspec.StatusError, toolspec.CodeUnavailable, "no-such-python-for-tools-test")
}
