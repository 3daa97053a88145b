package agent

import (
	"go/build"
	"slices"
	"strings"
	"testing"
)

// TestNoRuntimeImports keeps the definitions apart from the runtime: agent
// and what it imports reach no project package but these, and no
// third-party module but the YAML parser.
func TestNoRuntimeImports(t *testing.T) {
	const module = "github.com/agentgw/agentgw/"
	allowed := []string{"internal/runes", "internal/suggest", "tools/toolspec"}
	seen := map[string]bool{}
	var walk func(path, dir string)
	walk = func(path, dir string) {
		pkg, err := build.Import(path, dir, 0)
		if err != nil {
			t.Fatalf("importing %s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			if seen[imp] || pkg.Goroot && !strings.Contains(imp, ".") {
				continue
			}
			seen[imp] = true
			switch {
			case strings.HasPrefix(imp, module):
				if !slices.Contains(allowed, strings.TrimPrefix(imp, module)) {
					t.Errorf("%s imports %s, which agent must not reach", path, imp)
				}
				walk(imp, pkg.Dir)
			case strings.Contains(strings.SplitN(imp, "/", 2)[0], "."):
				if imp != "go.yaml.in/yaml/v3" {
					t.Errorf("%s imports %s, a dependency agent must not reach", path, imp)
				}
			}
		}
	}
	walk(".", ".")
}
