package chunk

import "strings"

// splitJS finds the top-level declarations of a JavaScript or TypeScript
// file with the C-like scanner (no parser): function, class, interface,
// type, enum, namespace/module and const/let/var statements, bare or
// exported (export, export default, declare), each with its decorators.
// Imports, re-exports and other statements form the gaps. A class longer
// than MaxLines is split at its members (Class.member).
//
// A top-level statement is taken to start at a line's first token when
// that token sits at column 0 outside any bracket, is not a closing
// bracket or operator, and the token before it does not leave an
// expression open (an operator, a comma, a dot). So it does not follow
// code whose top level is indented, and it reads JSX text as code: an
// apostrophe there opens a string that ends with the line. A file whose
// brackets do not balance, or that ends inside a comment or template, is
// not split.
func splitJS(f *file) ([]span, bool) {
	sc := clike{templates: true, regexps: true}.scan(f.text, len(f.lines))
	if !sc.ok {
		return nil, false
	}
	f.markComments(sc.code)
	stmts := jsStatements(sc.toks, 0, 0, len(sc.toks), true)
	var out []span
	pendingDecorator := -1 // the line of the first decorator waiting for its declaration
	for _, st := range stmts {
		ts := sc.toks[st.from:st.to]
		isDecl, decorator, symbol := classifyJS(ts)
		start, end := ts[0].line, ts[len(ts)-1].endLine
		if decorator {
			if pendingDecorator < 0 {
				pendingDecorator = start
			}
			continue
		}
		if isDecl {
			if pendingDecorator >= 0 {
				start = pendingDecorator
			}
			s := span{start: start, end: end, symbol: symbol}
			if end-start+1 > f.opts.MaxLines {
				if members, ok := jsClassBody(f, sc.toks, st, s); ok {
					out = append(out, members...)
					pendingDecorator = -1
					continue
				}
			}
			out = append(out, s)
		}
		pendingDecorator = -1
	}
	return out, true
}

// markComments records which lines hold only comments, from the
// scanner's lines with code.
func (f *file) markComments(code []bool) {
	f.commentOnly = make([]bool, len(f.lines))
	for i := range f.lines {
		f.commentOnly[i] = !code[i] && !f.blank(i+1)
	}
}

// stmt is a statement: the tokens from..to (exclusive).
type stmt struct{ from, to int }

// jsStatements cuts the tokens from..to that sit at depth into
// statements. A statement starts at the first token of a line (at column
// col when atCol) unless that token or the one before it continues an
// expression; tokens deeper than depth belong to the statement they are
// in.
func jsStatements(toks []tok, depth, from, to int, atCol bool) []stmt {
	var out []stmt
	col := -1
	if !atCol {
		col = -2 // the column of the first statement, once known
	}
	for k := from; k < to; k++ {
		t := toks[k]
		if t.depth != depth {
			continue
		}
		first := k == from || toks[k-1].endLine < t.line
		if !first || jsContinues(t) {
			continue
		}
		if k > from && jsLeavesOpen(toks[k-1]) {
			continue
		}
		switch {
		case col == -2:
			col = t.col
		case atCol && t.col != 0, !atCol && t.col != col:
			continue
		}
		if n := len(out); n > 0 {
			out[n-1].to = k
		}
		out = append(out, stmt{from: k, to: to})
	}
	if len(out) > 0 && out[0].from != from {
		out[0].from = from // whatever precedes the first start is part of it
	}
	return out
}

// jsContinues reports whether a statement cannot start with t.
func jsContinues(t tok) bool {
	if t.kind != tokPunct {
		return false
	}
	return strings.Contains(")]}.,?:=+*&|>%^", t.text)
}

// jsLeavesOpen reports whether an expression goes on after t.
func jsLeavesOpen(t tok) bool {
	if t.kind != tokPunct {
		return false
	}
	return strings.Contains("=,([{.?:+-*/%&|^!<>~", t.text)
}

// classifyJS tells whether a top-level statement declares something and
// what, or is only decorators.
func classifyJS(ts []tok) (isDecl, decorator bool, symbol string) {
	i := skipDecorators(ts, 0)
	if i >= len(ts) {
		return false, true, ""
	}
	ident := func(k int) string {
		if k < len(ts) && ts[k].kind == tokIdent {
			return ts[k].text
		}
		return ""
	}
	isDefault := false
	for {
		switch w := ident(i); {
		case w == "export", w == "declare":
			i++
			continue
		case w == "default" && i > 0 && ident(i-1) == "export":
			isDefault = true
			i++
			continue
		case w == "abstract" && ident(i+1) == "class",
			w == "async" && ident(i+1) == "function":
			i++
			continue
		}
		break
	}
	if k := skipDecorators(ts, i); k != i { // export @dec class …
		i = k
	}
	orDefault := func(name string) string {
		if name == "" && isDefault {
			return "default"
		}
		return name
	}
	switch ident(i) {
	case "function":
		i++
		if i < len(ts) && ts[i].text == "*" {
			i++
		}
		return true, false, orDefault(ident(i))
	case "class":
		name := ident(i + 1)
		if name == "extends" || name == "implements" {
			name = ""
		}
		return true, false, orDefault(name)
	case "interface", "enum":
		if name := ident(i + 1); name != "" {
			return true, false, name
		}
	case "const":
		if ident(i+1) == "enum" && ident(i+2) != "" {
			return true, false, ident(i + 2)
		}
		return jsBinding(ts, i+1)
	case "let", "var":
		return jsBinding(ts, i+1)
	case "type":
		if name := ident(i + 1); name != "" && i+2 < len(ts) && (ts[i+2].text == "=" || ts[i+2].text == "<") {
			return true, false, name
		}
	case "namespace", "module":
		var parts []string
		for k := i + 1; k < len(ts); k += 2 {
			if ts[k].kind == tokIdent {
				parts = append(parts, ts[k].text)
			} else if t := ts[k].text; ts[k].kind == tokLit && len(t) >= 2 && (t[0] == '"' || t[0] == '\'') && k == i+1 {
				parts = append(parts, strings.Trim(t, `"'`)) // declare module "x"
			}
			if k+1 >= len(ts) || ts[k+1].text != "." {
				break
			}
		}
		if len(parts) > 0 && i+1 < len(ts) && ts[i+1].text != "." {
			return true, false, strings.Join(parts, ".")
		}
	case "global":
		if i+1 < len(ts) && ts[i+1].text == "{" {
			return true, false, "global"
		}
	}
	if isDefault {
		return true, false, "default"
	}
	return false, false, ""
}

// jsBinding names what a const, let or var statement binds from token i:
// an identifier or the names in a destructuring pattern.
func jsBinding(ts []tok, i int) (bool, bool, string) {
	if i >= len(ts) {
		return false, false, ""
	}
	if ts[i].kind == tokIdent {
		return true, false, ts[i].text
	}
	if ts[i].text != "{" && ts[i].text != "[" {
		return false, false, ""
	}
	d := ts[i].depth
	var names []string
	for k := i + 1; k < len(ts) && ts[k].depth > d; k++ {
		if ts[k].kind == tokIdent && ts[k].depth == d+1 && (k+1 >= len(ts) || ts[k+1].text != ":") {
			names = append(names, ts[k].text)
		}
	}
	return true, false, listSymbol(names)
}

// skipDecorators skips the decorators (@a.b(…)) from token i.
func skipDecorators(ts []tok, i int) int {
	for i < len(ts) && ts[i].text == "@" && i+1 < len(ts) && ts[i+1].kind == tokIdent && ts[i+1].text != "interface" {
		i += 2
		for i+1 < len(ts) && ts[i].text == "." && ts[i+1].kind == tokIdent {
			i += 2
		}
		if i < len(ts) && ts[i].text == "(" {
			d := ts[i].depth
			for i++; i < len(ts) && !(ts[i].depth == d && ts[i].text == ")"); i++ {
			}
			i++
		}
	}
	return i
}

// jsClassBody splits a long class declaration at its members: the class's
// head to its opening brace, then each member (with its decorators and
// comments) as Class.member, the closing brace going with the last.
func jsClassBody(f *file, toks []tok, st stmt, whole span) ([]span, bool) {
	open := -1
	for k := st.from; k < st.to; k++ {
		if toks[k].depth == 0 && toks[k].text == "{" {
			if k > st.from && toks[k-1].text == "=" {
				return nil, false // an object, not a class body
			}
			open = k
			break
		}
	}
	if open < 0 {
		return nil, false
	}
	isClass := false
	for k := st.from; k < open; k++ {
		if toks[k].kind == tokIdent && toks[k].text == "class" {
			isClass = true
		}
	}
	closing := -1
	for k := open + 1; k < st.to; k++ {
		if toks[k].depth == 0 && toks[k].text == "}" {
			closing = k
			break
		}
	}
	if !isClass || closing < 0 {
		return nil, false
	}
	members := jsStatements(toks, 1, open+1, closing, false)
	if len(members) == 0 {
		return nil, false
	}
	out := []span{{start: whole.start, end: toks[open].line, symbol: whole.symbol}}
	pending := -1
	for _, m := range members {
		ts := toks[m.from:m.to]
		i := skipDecorators(ts, 0)
		if i >= len(ts) {
			if pending < 0 {
				pending = ts[0].line
			}
			continue
		}
		start := ts[0].line
		if pending >= 0 {
			start, pending = pending, -1
		}
		out = append(out, span{start: start, end: ts[len(ts)-1].endLine, symbol: whole.symbol + "." + jsMemberName(ts[i:])})
	}
	last := &out[len(out)-1]
	last.end = max(last.end, toks[closing].line)
	return out, true
}

// jsMemberName names a class member: the first identifier after its
// modifiers, "constructor" included.
func jsMemberName(ts []tok) string {
	for k, t := range ts {
		if t.kind != tokIdent {
			if t.kind == tokLit && t.text != "0" {
				return "" // a computed or quoted name
			}
			if t.text == "[" || t.text == "(" || t.text == "{" || t.text == "=" {
				return ""
			}
			continue
		}
		switch t.text {
		case "static", "async", "get", "set", "public", "private", "protected", "readonly",
			"abstract", "override", "declare", "accessor":
			if k+1 < len(ts) && (ts[k+1].kind == tokIdent || ts[k+1].text == "#" || ts[k+1].text == "*" || ts[k+1].text == "[") {
				continue
			}
		}
		return t.text
	}
	return ""
}

// lastDecoratorToken returns the last token of the decorators (or Java
// annotations) starting at token i, or i when none starts there.
func lastDecoratorToken(ts []tok, i int) int {
	return max(skipDecorators(ts, i)-1, i)
}
