package chunk

import "strings"

// pyLine is what the Python scanner knows of a line.
type pyLine struct {
	// start: the line begins a logical line (not inside a string, brackets
	// or a backslash continuation).
	start bool
	// comment: the line holds only a comment.
	comment bool
	indent  int
}

// scanPython reads a Python file line by line, following strings (single,
// triple-quoted, with any prefix), comments, brackets and backslash
// continuations, so that only real logical lines count as statements. It
// reports false when the file ends inside a string or brackets.
func scanPython(lines []string) ([]pyLine, bool) {
	out := make([]pyLine, len(lines))
	quote := "" // the open string's quote: ', ", ''' or """
	depth := 0
	cont := false
	ok := true
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " \t")
		out[i] = pyLine{
			start:   quote == "" && depth == 0 && !cont,
			comment: quote == "" && strings.HasPrefix(trimmed, "#"),
			indent:  len(line) - len(trimmed),
		}
		cont = false
		for j := 0; j < len(line); j++ {
			c := line[j]
			if quote != "" {
				switch {
				case c == '\\':
					j++
					if j >= len(line) && len(quote) == 1 {
						cont = true // the string goes on on the next line
					}
				case strings.HasPrefix(line[j:], quote):
					j += len(quote) - 1
					quote = ""
				}
				continue
			}
			switch c {
			case '#':
				j = len(line)
			case '"', '\'':
				q := line[j : j+1]
				if strings.HasPrefix(line[j:], strings.Repeat(q, 3)) {
					q = strings.Repeat(q, 3)
				}
				quote = q
				j += len(q) - 1
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				if depth == 0 {
					ok = false
				} else {
					depth--
				}
			case '\\':
				if j == len(line)-1 {
					cont = true
				}
			}
		}
		if len(quote) == 1 && !cont {
			quote = "" // a one-line string left open: recover at the line's end
		}
	}
	return out, ok && quote == "" && depth == 0
}

// pyStmt is a statement at one indentation level.
type pyStmt struct {
	start, end int // 1-based lines
	kind       byte
	name       string
}

// Kinds of pyStmt.
const (
	pyOther = iota
	pyDef
	pyClass
	pyDecorator
)

// pyStatements lists the statements beginning at the given indentation
// between lines from and to (1-based, inclusive). A statement runs to the
// last line before the next one that is not blank and not a comment at or
// left of that indentation (such a comment goes with what follows).
func pyStatements(f *file, info []pyLine, from, to, indent int) []pyStmt {
	var out []pyStmt
	for n := from; n <= to; n++ {
		li := info[n-1]
		if li.start && !li.comment && li.indent == indent && !f.blank(n) {
			if k := len(out); k > 0 {
				out[k-1].end = pyEnd(f, info, out[k-1].start, n-1, indent)
			}
			kind, name := pyKind(f.lines[n-1][indent:])
			out = append(out, pyStmt{start: n, kind: kind, name: name})
		}
	}
	if k := len(out); k > 0 {
		out[k-1].end = pyEnd(f, info, out[k-1].start, to, indent)
	}
	return out
}

// pyEnd finds where a statement that began at start ends, at most at to.
func pyEnd(f *file, info []pyLine, start, to, indent int) int {
	for n := to; n > start; n-- {
		li := info[n-1]
		if f.blank(n) || (li.comment && li.start && li.indent <= indent) {
			continue
		}
		return n
	}
	return start
}

// pyKind tells a def, class or decorator line from any other and names
// what it declares.
func pyKind(s string) (byte, string) {
	switch {
	case strings.HasPrefix(s, "@"):
		return pyDecorator, ""
	case strings.HasPrefix(s, "class") && len(s) > 5 && isPySpace(s[5]):
		return pyClass, pyName(s[5:])
	case strings.HasPrefix(s, "def") && len(s) > 3 && isPySpace(s[3]):
		return pyDef, pyName(s[3:])
	case strings.HasPrefix(s, "async") && len(s) > 5 && isPySpace(s[5]):
		rest := strings.TrimLeft(s[5:], " \t")
		if strings.HasPrefix(rest, "def") && len(rest) > 3 && isPySpace(rest[3]) {
			return pyDef, pyName(rest[3:])
		}
	}
	return pyOther, ""
}

func isPySpace(c byte) bool { return c == ' ' || c == '\t' }

// pyName reads the identifier at the start of s, after white space.
func pyName(s string) string {
	s = strings.TrimLeft(s, " \t")
	for i, r := range s {
		if !isIdentRune(r) {
			return s[:i]
		}
	}
	return s
}

// splitPython finds a Python file's top-level def, async def and class
// statements, each with its decorators; the module-level code between them
// forms the gaps. A class longer than MaxLines is split at its own
// methods (Class.method), its other statements grouped under the class's
// name. A file that ends inside a string or brackets is not split.
func splitPython(f *file) ([]span, bool) {
	info, ok := scanPython(f.lines)
	if !ok {
		return nil, false
	}
	f.commentOnly = make([]bool, len(info))
	for i, li := range info {
		f.commentOnly[i] = li.comment
	}
	var out []span
	for _, d := range pyDecls(pyStatements(f, info, 1, len(f.lines), 0)) {
		if d.kind == pyOther {
			continue
		}
		s := span{start: d.start, end: d.end, symbol: d.name}
		if d.kind == pyClass && d.end-d.start+1 > f.opts.MaxLines {
			out = append(out, pyClassBody(f, info, d)...)
			continue
		}
		out = append(out, s)
	}
	return out, true
}

// pyDecls joins each run of decorators to the def or class that follows
// it; a decorator followed by anything else is left as other code.
func pyDecls(stmts []pyStmt) []pyStmt {
	var out []pyStmt
	for i := 0; i < len(stmts); i++ {
		s := stmts[i]
		if s.kind == pyDecorator {
			j := i
			for j < len(stmts) && stmts[j].kind == pyDecorator {
				j++
			}
			if j < len(stmts) && (stmts[j].kind == pyDef || stmts[j].kind == pyClass) {
				d := stmts[j]
				d.start = s.start
				out = append(out, d)
				i = j
				continue
			}
			s.kind = pyOther
		}
		out = append(out, s)
	}
	return out
}

// pyClassBody splits a long class at the statements of its body: its
// methods (and nested classes) one span each, the rest in runs named by
// the class.
func pyClassBody(f *file, info []pyLine, c pyStmt) []span {
	whole := []span{{start: c.start, end: c.end, symbol: c.name}}
	// The body's indentation: that of its first statement.
	indent := -1
	header := c.start // the class line, after the decorators
	for header < c.end {
		li := info[header-1]
		if li.start && li.indent == 0 {
			if k, _ := pyKind(f.lines[header-1]); k == pyClass {
				break
			}
		}
		header++
	}
	for n := header + 1; n <= c.end; n++ {
		li := info[n-1]
		if li.start && !li.comment && !f.blank(n) {
			indent = li.indent
			break
		}
	}
	if indent <= 0 {
		return whole
	}
	body := pyDecls(pyStatements(f, info, header+1, c.end, indent))
	if len(body) == 0 {
		return whole
	}
	headerEnd := header // the class line's last line
	for headerEnd < c.end && !info[headerEnd].start {
		headerEnd++
	}
	out := []span{{start: c.start, end: headerEnd, symbol: c.name}}
	for _, s := range body {
		if s.kind == pyOther {
			last := &out[len(out)-1]
			if last.symbol == c.name {
				last.end = s.end // the class's own code, grouped
				continue
			}
			out = append(out, span{start: s.start, end: s.end, symbol: c.name})
			continue
		}
		out = append(out, span{start: s.start, end: s.end, symbol: c.name + "." + s.name})
	}
	return out
}
