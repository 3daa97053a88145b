package chunk

import (
	"unicode"
	"unicode/utf8"
)

// tok is a token of a C-like language (JavaScript, TypeScript, Java) as the
// scanner sees it: an identifier or keyword, a one-character punctuation,
// or a literal: a quoted string (its text, quotes included), or a number,
// template, text block or regular expression (only its first character:
// 0, `, " or /).
type tok struct {
	kind byte // tokIdent, tokPunct or tokLit
	text string
	// line and endLine are the 1-based lines the token starts and ends on
	// (a template literal or text block may span several).
	line, endLine int
	col           int // byte offset of its start within its line
	// depth is the nesting of (), [] and {} the token sits in; a bracket
	// has the depth outside it, so matching brackets have the same.
	depth int
}

// Kinds of tok.
const (
	tokIdent = iota
	tokPunct
	tokLit
)

// scanner settings per language.
type clike struct {
	// templates: `…${…}…` template literals (JavaScript).
	templates bool
	// regexps: /…/ regular expression literals (JavaScript).
	regexps bool
	// textBlocks: """…""" text blocks (Java).
	textBlocks bool
}

// scanned is a scanned file.
type scanned struct {
	toks []tok
	// code marks the lines (0-based) holding a token, as opposed to only
	// comments and white space.
	code []bool
	// ok is false when the file ends inside a comment, template or text
	// block, or its brackets do not balance.
	ok bool
}

// jsRegexpAfter reports whether word is a keyword after which a slash
// starts a regular expression rather than a division.
func jsRegexpAfter(word string) bool {
	switch word {
	case "return", "typeof", "instanceof", "in", "of", "new", "delete", "void",
		"throw", "case", "do", "else", "yield", "await":
		return true
	}
	return false
}

// scan tokenises text. It knows line and block comments, '…' and "…"
// strings (a string left open at the end of its line ends there, which
// bounds the harm of a quote it misreads, such as an apostrophe in JSX
// text), and per language template literals with nested ${} expressions,
// regular expressions (told from a division by the token before the
// slash) and text blocks.
func (c clike) scan(text string, nlines int) scanned {
	s := scanned{code: make([]bool, nlines), ok: true, toks: make([]tok, 0, len(text)/8)}
	line, lineStart := 1, 0
	depth := 0
	var tmpl []int // depths at which an open ${ returns into its template
	mark := func(from, to int) {
		for n := from; n <= to && n <= nlines; n++ {
			s.code[n-1] = true
		}
	}
	emit := func(kind byte, txt string, startLine, startCol int) {
		s.toks = append(s.toks, tok{kind: kind, text: txt, line: startLine, endLine: line, col: startCol, depth: depth})
		mark(startLine, line)
	}
	// newline moves past a "\n" at i.
	newline := func(i int) {
		line++
		lineStart = i + 1
	}
	// scanTemplate reads a template literal's text from i (after ` or })
	// to its closing backtick or an ${, returning where it stopped.
	scanTemplate := func(i int) int {
		for i < len(text) {
			switch text[i] {
			case '\\':
				if i+1 < len(text) && text[i+1] == '\n' {
					newline(i + 1)
				}
				i += 2
				continue
			case '\n':
				newline(i)
			case '`':
				return i + 1
			case '$':
				if i+1 < len(text) && text[i+1] == '{' {
					tmpl = append(tmpl, depth)
					depth++
					return i + 2
				}
			}
			i++
		}
		s.ok = false // unterminated
		return i
	}
	prevToken := func() (tok, bool) {
		if len(s.toks) == 0 {
			return tok{}, false
		}
		return s.toks[len(s.toks)-1], true
	}
	for i := 0; i < len(text); {
		ch := text[i]
		begin, startLine, startCol := i, line, i-lineStart
		switch {
		case ch == '\n':
			newline(i)
			i++
		case ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v':
			i++
		case ch == '/' && i+1 < len(text) && text[i+1] == '/':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case ch == '/' && i+1 < len(text) && text[i+1] == '*':
			i += 2
			closed := false
			for i < len(text) {
				if text[i] == '*' && i+1 < len(text) && text[i+1] == '/' {
					i += 2
					closed = true
					break
				}
				if text[i] == '\n' {
					newline(i)
				}
				i++
			}
			if !closed {
				s.ok = false
			}
		case c.textBlocks && ch == '"' && hasPrefixAt(text, i, `"""`):
			i += 3
			closed := false
			for i < len(text) {
				if text[i] == '\\' {
					if i+1 < len(text) && text[i+1] == '\n' {
						newline(i + 1)
					}
					i += 2
					continue
				}
				if hasPrefixAt(text, i, `"""`) {
					i += 3
					closed = true
					break
				}
				if text[i] == '\n' {
					newline(i)
				}
				i++
			}
			if !closed {
				s.ok = false
				i = len(text)
			}
			emit(tokLit, `"""`, startLine, startCol)
		case ch == '"' || ch == '\'':
			i++
			for i < len(text) && text[i] != ch && text[i] != '\n' {
				if text[i] == '\\' && i+1 < len(text) {
					if text[i+1] == '\n' {
						newline(i + 1)
					}
					i++
				}
				i++
			}
			if i < len(text) && text[i] == ch {
				i++
			}
			emit(tokLit, text[begin:i], startLine, startCol)
		case c.templates && ch == '`':
			d := depth
			i = scanTemplate(i + 1)
			emit(tokLit, "`", startLine, startCol)
			s.toks[len(s.toks)-1].depth = d // not inside the ${ it may have opened
		case c.regexps && ch == '/' && c.regexpStarts(prevToken()):
			i++
			inClass := false
			for i < len(text) && text[i] != '\n' {
				b := text[i]
				if b == '\\' {
					if i+1 < len(text) && text[i+1] == '\n' {
						break
					}
					i += 2
					continue
				}
				i++
				if b == '[' {
					inClass = true
				} else if b == ']' {
					inClass = false
				} else if b == '/' && !inClass {
					break
				}
			}
			i = min(i, len(text))
			for i < len(text) && isASCIILetter(text[i]) { // flags
				i++
			}
			emit(tokLit, "/", startLine, startCol)
		case ch >= '0' && ch <= '9':
			for i < len(text) && (isASCIIIdent(text[i]) || text[i] == '.') {
				i++
			}
			emit(tokLit, "0", startLine, startCol)
		case isASCIIIdent(ch) || ch >= utf8.RuneSelf:
			j := i
			for j < len(text) {
				r, size := utf8.DecodeRuneInString(text[j:])
				if !isIdentRune(r) {
					break
				}
				j += size
			}
			if j == i { // a non-ASCII character that is no letter: punctuation
				_, size := utf8.DecodeRuneInString(text[i:])
				j = i + size
				emit(tokPunct, text[i:j], startLine, startCol)
			} else {
				emit(tokIdent, text[i:j], startLine, startCol)
			}
			i = j
		default:
			i++
			switch ch {
			case '(', '[', '{':
				emit(tokPunct, string(ch), startLine, startCol)
				depth++
			case ')', ']', '}':
				if depth == 0 {
					s.ok = false
				} else {
					depth--
				}
				emit(tokPunct, string(ch), startLine, startCol)
				if ch == '}' && len(tmpl) > 0 && depth == tmpl[len(tmpl)-1] {
					tmpl = tmpl[:len(tmpl)-1]
					i = scanTemplate(i)
					s.toks[len(s.toks)-1].kind = tokLit // the template goes on
					s.toks[len(s.toks)-1].endLine = line
					mark(startLine, line)
				}
			default:
				emit(tokPunct, string(ch), startLine, startCol)
			}
		}
	}
	if depth != 0 || len(tmpl) != 0 {
		s.ok = false
	}
	return s
}

// regexpStarts reports whether a slash after the token p (ok false at the
// start of the file) starts a regular expression.
func (c clike) regexpStarts(p tok, ok bool) bool {
	if !ok {
		return true
	}
	switch p.kind {
	case tokIdent:
		return jsRegexpAfter(p.text)
	case tokLit:
		return false
	}
	switch p.text {
	case ")", "]":
		return false
	}
	return true
}

func hasPrefixAt(s string, i int, prefix string) bool {
	return len(s)-i >= len(prefix) && s[i:i+len(prefix)] == prefix
}

func isASCIILetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

func isASCIIIdent(b byte) bool {
	return isASCIILetter(b) || b >= '0' && b <= '9' || b == '_' || b == '$'
}

// isIdentRune reports whether r may be part of an identifier in the
// languages the splitters read.
func isIdentRune(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
