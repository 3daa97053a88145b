package tools

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/configs"
)

// fixerRunTests is the embedded example agent fixer's run_tests tool, its
// program (go test) replaced by the test binary's stand-in that, like go
// test, runs what its -exec flag names.
func fixerRunTests(t *testing.T) Spec {
	t.Helper()
	raw, err := fs.ReadFile(configs.FS, filepath.Join(configs.AgentsDir, "fixer.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var def struct {
		Tools []Spec `yaml:"tools"`
	}
	if err := yaml.Unmarshal(raw, &def); err != nil {
		t.Fatalf("fixer.yaml: %v", err)
	}
	for _, s := range def.Tools {
		if s.Name == "run_tests" {
			if s.Entry != "go" || len(s.Args) == 0 || s.Args[0] != "test" {
				t.Fatalf("run_tests is no longer `go test ...`: entry %q args %q", s.Entry, s.Args)
			}
			s.Entry = nativeTool(t)
			s.Args = append([]string{"gotest"}, s.Args[1:]...)
			return s
		}
	}
	t.Fatal("fixer.yaml has no run_tests tool")
	return Spec{}
}

// TestFixerExecAttack is issue 24 item 1, tool side: the parameters a
// schedule (or a model, a plan, an MCP client) passes to fixer's run_tests
// cannot add a flag to go test. The file the injected command would write
// is never written; the declared parameter still works.
func TestFixerExecAttack(t *testing.T) {
	t.Parallel()
	tool := mustCompile(t, NewManager(Config{}), fixerRunTests(t), t.TempDir())
	attacks := []struct {
		name   string
		params func(side string) map[string]any
		code   string
	}{
		{"undeclared exec", func(side string) map[string]any { return map[string]any{"exec": "touch " + side} }, toolspec.CodeInvalidParameters},
		{"undeclared toolexec", func(side string) map[string]any { return map[string]any{"toolexec": "touch " + side} }, toolspec.CodeInvalidParameters},
		{"undeclared beside declared", func(side string) map[string]any {
			return map[string]any{"run": "TestX", "exec": "touch " + side}
		}, toolspec.CodeInvalidParameters},
		{"flag in a declared value", func(side string) map[string]any { return map[string]any{"run": "-exec=touch " + side} }, ""},
		{"flag pair in a declared value", func(side string) map[string]any { return map[string]any{"run": "--exec touch " + side} }, ""},
	}
	for _, tc := range attacks {
		t.Run(tc.name, func(t *testing.T) {
			side := filepath.Join(t.TempDir(), "pwned")
			res := call(tool, tc.params(side))
			if _, err := os.Stat(side); !os.IsNotExist(err) {
				t.Fatalf("the injected command ran: %s exists (stat %v); result %+v", side, err, res)
			}
			if tc.code != "" {
				wantError(t, res, toolspec.StatusError, tc.code, "not declared by tool run_tests", "declared: run")
			}
		})
	}
	wantSuccess(t, call(tool, map[string]any{"run": "TestFoo"}))
	wantSuccess(t, call(tool, nil))
}
