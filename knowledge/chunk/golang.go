package chunk

import (
	"go/ast"
	"go/parser"
	"go/token"
)

// splitGo finds a Go file's top-level declarations with go/parser: the
// package clause with the imports (and whatever precedes them, such as a
// licence or build constraints) is one span; each function, method and
// type, const or var declaration (a parenthesised group as a whole) is one,
// from its doc comment. A file that does not parse is not split (false).
//
// Between top-level declarations Go allows only comments, so every gap
// joins the declaration after it.
func splitGo(f *file) ([]span, bool) {
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, "", f.text, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, false
	}
	line := func(p token.Pos) int { return fset.Position(p).Line }
	f.commentOnly = make([]bool, len(f.lines))
	for _, g := range af.Comments {
		for n := line(g.Pos()); n <= line(g.End()); n++ {
			f.commentOnly[n-1] = true
		}
	}
	head := span{start: 1, end: line(af.Name.End()), symbol: "package " + af.Name.Name}
	var out []span
	for _, d := range af.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			head.end = max(head.end, line(g.End()))
			continue
		}
		s := span{start: line(d.Pos()), end: line(d.End())}
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Doc != nil {
				s.start = line(d.Doc.Pos())
			}
			s.symbol = d.Name.Name
			if d.Recv != nil && len(d.Recv.List) > 0 {
				if r := ReceiverName(d.Recv.List[0].Type); r != "" {
					s.symbol = r + "." + d.Name.Name
				}
			}
		case *ast.GenDecl:
			if d.Doc != nil {
				s.start = line(d.Doc.Pos())
			}
			var names []string
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					names = append(names, sp.Name.Name)
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						names = append(names, n.Name)
					}
				}
			}
			s.symbol = listSymbol(names)
		}
		out = append(out, s)
	}
	return append([]span{head}, out...), true
}

// ReceiverName names a method's receiver type, without pointer or type
// parameters: the Type of the Type.Method symbol a method's chunk has.
func ReceiverName(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}
