package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRootOf finds the repository's root from the go.mod go env GOMOD
// names: the root's own, or the bench module's beneath it (go run . in
// bench/), whose parent must be the gateway's module.
func TestRootOf(t *testing.T) {
	dir := t.TempDir()
	write := func(path, content string) string {
		t.Helper()
		path = filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	repo := filepath.Join(dir, "repo")
	rootMod := write("repo/go.mod", "module github.com/agentgw/agentgw\n\ngo 1.26.0\n")
	benchMod := write("repo/bench/go.mod", "// the harness\nmodule \"github.com/agentgw/agentgw/bench\" // own module\n\ngo 1.26.0\n")
	strayBench := write("stray/bench/go.mod", "module github.com/agentgw/agentgw/bench\n")
	write("stray/go.mod", "module example.com/modulexyz\n")
	other := write("other/go.mod", "module example.com/other\n")
	noModule := write("empty/go.mod", "go 1.26.0\n")

	tests := []struct {
		name, gomod, want, errHas string
	}{
		{"the root", rootMod, repo, ""},
		{"the bench module", benchMod, repo, ""},
		{"a bench module elsewhere", strayBench, "", "not in the agentgw repository"},
		{"another module", other, "", "example.com/other"},
		{"a go.mod without a module line", noModule, "", "no module line"},
		{"outside any module", os.DevNull, "", "not inside the agentgw repository"},
		{"GOMOD empty", "", "", "not inside the agentgw repository"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RootOf(tt.gomod)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("RootOf(%s) = %q, %v; want an error with %q", tt.gomod, got, err, tt.errHas)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("RootOf(%s) = %q, %v; want %q", tt.gomod, got, err, tt.want)
			}
		})
	}
}
