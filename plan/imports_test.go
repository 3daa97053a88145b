package plan

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports keeps the package free of other agentgw packages (the agent package imports this one),
// except the leaf helpers under internal/ that import nothing of the project, and of third-party code
// other than expr-lang.
func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(path, "/")
			if strings.Contains(first, ".") && !strings.HasPrefix(path, "github.com/expr-lang/expr") &&
				path != "github.com/agentgw/agentgw/internal/suggest" && path != "github.com/agentgw/agentgw/internal/runes" {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
}
