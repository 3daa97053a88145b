package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestNoLateBinds (issue 27 item 1): the gateway is wired in dependency
// order: no part is given another after it is made. The files that build
// the gateway (serve, the agent tests' loader, the hub and queue, the
// loader, the schedules, the MCP export) call no setter (Set…) or Bind
// and keep no atomic.Pointer to fill later; the hub gets its runner as the
// queue starts (hub.Hub.Handlers), the ask step and ask_agent tool through
// the run asking (agent/dispatch).
func TestNoLateBinds(t *testing.T) {
	files := []string{"serve.go", "test_cmd.go", "handoffs.go", "loader.go", "schedules.go", "runtimes.go", "../../agenttest/suite.go"}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && lateBind(sel.Sel.Name) {
					t.Errorf("%s: %s(...): a late bind; construct in dependency order or pass a narrow interface", fset.Position(n.Pos()), sel.Sel.Name)
				}
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "atomic" && n.Sel.Name == "Pointer" {
					t.Errorf("%s: atomic.Pointer: a value filled after construction is a late bind", fset.Position(n.Pos()))
				}
			}
			return true
		})
	}
}

// lateBind reports whether a method called name gives a part another after
// it was made.
func lateBind(name string) bool {
	if name == "Bind" {
		return true
	}
	rest, ok := strings.CutPrefix(name, "Set")
	return ok && rest != "" && strings.ToUpper(rest[:1]) == rest[:1]
}
