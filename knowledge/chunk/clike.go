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
	l := &lexer{clike: c, text: text, line: 1,
		s: scanned{code: make([]bool, nlines), ok: true, toks: make([]tok, 0, len(text)/8)}}
	for l.i < len(text) {
		l.next()
	}
	if l.depth != 0 || len(l.tmpl) != 0 {
		l.s.ok = false
	}
	return l.s
}

// lexer is the state of one scan: the position in text and the line it is
// on, the bracket nesting, and the tokens so far.
type lexer struct {
	clike
	text string
	i    int // the offset of the next byte to read
	// line is the 1-based line of text[i]; lineStart is where it starts.
	line, lineStart int
	depth           int
	tmpl            []int // depths at which an open ${ returns into its template
	s               scanned
}

// mark records that lines from through to hold code.
func (l *lexer) mark(from, to int) {
	for n := from; n <= to && n <= len(l.s.code); n++ {
		l.s.code[n-1] = true
	}
}

// emit adds a token that started at startLine, startCol and ends on the
// current line.
func (l *lexer) emit(kind byte, txt string, startLine, startCol int) {
	l.s.toks = append(l.s.toks, tok{kind: kind, text: txt, line: startLine, endLine: l.line, col: startCol, depth: l.depth})
	l.mark(startLine, l.line)
}

// newline moves past a "\n" at i.
func (l *lexer) newline(i int) {
	l.line++
	l.lineStart = i + 1
}

// prevToken is the last token, ok false at the start of the file.
func (l *lexer) prevToken() (tok, bool) {
	if len(l.s.toks) == 0 {
		return tok{}, false
	}
	return l.s.toks[len(l.s.toks)-1], true
}

// next reads the token, blank or comment at i.
func (l *lexer) next() {
	text, i := l.text, l.i
	ch := text[i]
	startLine, startCol := l.line, i-l.lineStart
	switch {
	case ch == '\n':
		l.newline(i)
		l.i++
	case ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v':
		l.i++
	case ch == '/' && i+1 < len(text) && text[i+1] == '/':
		for l.i < len(text) && text[l.i] != '\n' {
			l.i++
		}
	case ch == '/' && i+1 < len(text) && text[i+1] == '*':
		l.blockComment()
	case l.textBlocks && ch == '"' && hasPrefixAt(text, i, `"""`):
		l.textBlock()
		l.emit(tokLit, `"""`, startLine, startCol)
	case ch == '"' || ch == '\'':
		l.quoted(ch)
		l.emit(tokLit, text[i:l.i], startLine, startCol)
	case l.templates && ch == '`':
		d := l.depth
		l.i = l.template(i + 1)
		l.emit(tokLit, "`", startLine, startCol)
		l.s.toks[len(l.s.toks)-1].depth = d // not inside the ${ it may have opened
	case l.regexps && ch == '/' && l.regexpStarts(l.prevToken()):
		l.regexp()
		l.emit(tokLit, "/", startLine, startCol)
	case ch >= '0' && ch <= '9':
		for l.i < len(text) && (isASCIIIdent(text[l.i]) || text[l.i] == '.') {
			l.i++
		}
		l.emit(tokLit, "0", startLine, startCol)
	case isASCIIIdent(ch) || ch >= utf8.RuneSelf:
		l.ident(startLine, startCol)
	default:
		l.i++
		l.punct(ch, startLine, startCol)
	}
}

// blockComment reads a /* comment */ from i.
func (l *lexer) blockComment() {
	text := l.text
	l.i += 2
	for l.i < len(text) {
		if text[l.i] == '*' && l.i+1 < len(text) && text[l.i+1] == '/' {
			l.i += 2
			return
		}
		if text[l.i] == '\n' {
			l.newline(l.i)
		}
		l.i++
	}
	l.s.ok = false // unterminated
}

// textBlock reads a """…""" text block from i.
func (l *lexer) textBlock() {
	text := l.text
	l.i += 3
	for l.i < len(text) {
		if text[l.i] == '\\' {
			if l.i+1 < len(text) && text[l.i+1] == '\n' {
				l.newline(l.i + 1)
			}
			l.i += 2
			continue
		}
		if hasPrefixAt(text, l.i, `"""`) {
			l.i += 3
			return
		}
		if text[l.i] == '\n' {
			l.newline(l.i)
		}
		l.i++
	}
	l.s.ok = false // unterminated
	l.i = len(text)
}

// quoted reads a string quoted with q from i, up to its closing quote or
// the end of its line.
func (l *lexer) quoted(q byte) {
	text := l.text
	l.i++
	for l.i < len(text) && text[l.i] != q && text[l.i] != '\n' {
		if text[l.i] == '\\' && l.i+1 < len(text) {
			if text[l.i+1] == '\n' {
				l.newline(l.i + 1)
			}
			l.i++
		}
		l.i++
	}
	if l.i < len(text) && text[l.i] == q {
		l.i++
	}
}

// template reads a template literal's text from i (after ` or }) to its
// closing backtick or an ${, returning where it stopped.
func (l *lexer) template(i int) int {
	text := l.text
	for i < len(text) {
		switch text[i] {
		case '\\':
			if i+1 < len(text) && text[i+1] == '\n' {
				l.newline(i + 1)
			}
			i += 2
			continue
		case '\n':
			l.newline(i)
		case '`':
			return i + 1
		case '$':
			if i+1 < len(text) && text[i+1] == '{' {
				l.tmpl = append(l.tmpl, l.depth)
				l.depth++
				return i + 2
			}
		}
		i++
	}
	l.s.ok = false // unterminated
	return i
}

// regexp reads a /regular expression/ and its flags from i; it ends at
// the end of its line at the latest.
func (l *lexer) regexp() {
	text := l.text
	l.i++
	inClass := false
	for l.i < len(text) && text[l.i] != '\n' {
		b := text[l.i]
		if b == '\\' {
			if l.i+1 < len(text) && text[l.i+1] == '\n' {
				break
			}
			l.i += 2
			continue
		}
		l.i++
		if b == '[' {
			inClass = true
		} else if b == ']' {
			inClass = false
		} else if b == '/' && !inClass {
			break
		}
	}
	l.i = min(l.i, len(text))
	for l.i < len(text) && isASCIILetter(text[l.i]) { // flags
		l.i++
	}
}

// ident reads an identifier or keyword from i, or a non-ASCII character
// that is no letter as punctuation.
func (l *lexer) ident(startLine, startCol int) {
	text, i := l.text, l.i
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
		l.emit(tokPunct, text[i:j], startLine, startCol)
	} else {
		l.emit(tokIdent, text[i:j], startLine, startCol)
	}
	l.i = j
}

// punct emits the one-byte punctuation ch, read already, keeping the
// bracket nesting; a } that closes a template's ${ goes back into the
// template.
func (l *lexer) punct(ch byte, startLine, startCol int) {
	switch ch {
	case '(', '[', '{':
		l.emit(tokPunct, string(ch), startLine, startCol)
		l.depth++
	case ')', ']', '}':
		if l.depth == 0 {
			l.s.ok = false
		} else {
			l.depth--
		}
		l.emit(tokPunct, string(ch), startLine, startCol)
		if ch == '}' && len(l.tmpl) > 0 && l.depth == l.tmpl[len(l.tmpl)-1] {
			l.tmpl = l.tmpl[:len(l.tmpl)-1]
			l.i = l.template(l.i)
			last := &l.s.toks[len(l.s.toks)-1]
			last.kind = tokLit // the template goes on
			last.endLine = l.line
			l.mark(startLine, l.line)
		}
	default:
		l.emit(tokPunct, string(ch), startLine, startCol)
	}
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
