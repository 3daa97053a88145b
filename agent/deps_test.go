package agent

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestNoRuntimeImports keeps the definitions apart from the runtime: agent
// and what it imports reach no project package but these, and no
// third-party module but the YAML parser.
func TestNoRuntimeImports(t *testing.T) {
	const module = "github.com/agentgw/agentgw/"
	allowed := []string{"internal/runes", "internal/suggest", "agent/toolspec"}
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

// TestNoThirdPartyTypesInAPI: the exported names of agent (functions,
// methods, struct fields) mention no YAML parser type (ARCHITECTURE.md:
// third-party types stay out of agent's API).
func TestNoThirdPartyTypesInAPI(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	check := func(where string, n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "yaml" {
					t.Errorf("%s: exported API mentions yaml.%s", where, sel.Sel.Name)
				}
			}
			return true
		})
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Name.IsExported() && (d.Recv == nil || ast.IsExported(strings.TrimPrefix(types.ExprString(d.Recv.List[0].Type), "*"))) {
					check(fset.Position(d.Pos()).String(), d.Type)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok || !ts.Name.IsExported() {
						continue
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						check(fset.Position(ts.Pos()).String(), ts.Type)
						continue
					}
					for _, fl := range st.Fields.List {
						if len(fl.Names) == 0 || fl.Names[0].IsExported() {
							check(fset.Position(fl.Pos()).String(), fl.Type)
						}
					}
				}
			}
		}
	}
}
