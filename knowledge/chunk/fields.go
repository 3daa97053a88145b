package chunk

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Parts are a chunk's text cut into what a ranking weighs apart: the
// comment that documents the declaration, the declaration's first line
// (its signature), the comments inside the declaration and the rest, its
// code. Doc + Signature + Comments + Body hold the text of every line
// once, in that order of precedence, not necessarily the text's.
type Parts struct {
	// Kind is the declaration's keyword (func, type, const, var, class,
	// def, interface, enum, package …) or "heading" for a Markdown
	// section, "" when the chunk declares nothing recognizable.
	Kind string
	// Doc is the leading comment of the declaration (Go, C-like, Java:
	// the comment lines before it; Python: those and the docstring after
	// the def or class line).
	Doc string
	// Signature is the declaration's line (a heading's line for
	// Markdown), with its decorators or annotations and the lines up to
	// the one opening the body: at most maxSignatureLines.
	Signature string
	// Synopsis is the first sentence of Doc's last paragraph of
	// comment lines (the comment adjacent to the declaration, not a
	// file's licence above it), without comment markers or tag lines
	// (@param): what go/doc calls a synopsis, the sentence saying what
	// the declaration is or does. At most maxSynopsisBytes, cut between
	// words.
	Synopsis string
	// Comments are the comments of the body (after the signature) of a
	// declaration that is not code to run (a type, a group of constants,
	// a class: see runs): whole comment lines and the comments ending
	// lines of code, which document its members (a struct's fields) as
	// the doc comment documents it. Empty when Signature is.
	Comments string
	// Body is the rest of the text: a declaration's code, without its
	// comments.
	Body string
	// Private is set when every name the chunk declares is private by
	// its language's convention: in Go not exported (a lower-case name,
	// or a method of an unexported type), in Python and JavaScript
	// starting with an underscore, in Java declared private.
	Private bool
	// Deprecated is set when the declaration says it is deprecated: a
	// line of its doc comment starting "Deprecated:" (Go's convention),
	// or @deprecated in its doc or signature (JSDoc, Javadoc; Java's
	// annotation @Deprecated).
	Deprecated bool
}

// maxSignatureLines bounds a signature spread over several lines.
const maxSignatureLines = 6

// Parts returns c's parts. A chunk that is not the head of a declaration
// (a window of a plain text file, the second piece of a long function, a
// Markdown chunk without its heading) is all Body. It depends only on the
// chunk's file name (for its language), symbol and text.
func (c Chunk) Parts() Parts {
	lang := languageOf(c.FileName)
	lines := strings.Split(c.Text, "\n")
	if c.Symbol == "" || lang == langOther {
		return Parts{Body: c.Text}
	}
	private := isPrivate(lang, c.Symbol, c.Text)
	if lang == langMarkdown {
		if len(lines) > 0 && strings.HasPrefix(strings.TrimSpace(lines[0]), "#") {
			return Parts{Kind: "heading", Signature: lines[0], Body: strings.Join(lines[1:], "\n")}
		}
		return Parts{Body: c.Text}
	}
	// The leading comment.
	i := 0
	inBlock := false
	for ; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if inBlock {
			if strings.Contains(t, "*/") {
				inBlock = false
			}
			continue
		}
		switch {
		case t == "":
		case lang == langPython && strings.HasPrefix(t, "#"):
		case lang != langPython && strings.HasPrefix(t, "//"):
		case lang != langPython && strings.HasPrefix(t, "/*"):
			inBlock = !strings.Contains(t[2:], "*/")
		default:
			goto decl
		}
	}
decl:
	doc := lines[:i]
	// The signature: from the declaration's first line (decorators and
	// annotations included) to the line that opens its body.
	j := i
	for j < len(lines) && j-i < maxSignatureLines {
		t := strings.TrimSpace(lines[j])
		j++
		if strings.HasPrefix(t, "@") {
			continue // a decorator or annotation
		}
		if opensBody(lang, t) {
			break
		}
	}
	sig := lines[i:j]
	if i == len(lines) || !declares(lang, sig, c.Symbol) {
		return Parts{Body: c.Text, Private: private}
	}
	body := lines[j:]
	if lang == langPython {
		if n := docstringEnd(body); n > 0 {
			doc = append(doc[:len(doc):len(doc)], body[:n]...)
			body = body[n:]
		}
	}
	kind := kindOf(sig)
	comments, code := "", strings.Join(body, "\n")
	if !runs[kind] {
		comments, code = splitComments(lang, body)
	}
	p := Parts{
		Kind:      kind,
		Doc:       strings.Join(doc, "\n"),
		Signature: strings.Join(sig, "\n"),
		Comments:  comments,
		Body:      code,
		Private:   private,
	}
	p.Synopsis = synopsis(p.Doc)
	p.Deprecated = isDeprecated(p.Doc, p.Signature)
	return p
}

// maxSynopsisBytes bounds Parts.Synopsis: a doc comment without a
// sentence's end is cut there.
const maxSynopsisBytes = 400

// synopsis is the first sentence of a doc comment (see Parts.Synopsis).
// A sentence ends, as go/doc has it, at a period followed by a space
// and not preceded by exactly one capital letter (U.S. goes on), or at
// a blank comment line or a tag line.
func synopsis(doc string) string {
	lines := strings.Split(doc, "\n")
	for i := len(lines) - 1; i > 0; i-- {
		t := strings.TrimSpace(lines[i])
		if strings.TrimSpace(lines[i-1]) == "" && (strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "#")) {
			lines = lines[i:] // the comment after a blank line, not one inside a docstring
			break
		}
	}
	var b strings.Builder
	for _, l := range lines {
		t := strings.TrimSpace(l)
		t = strings.TrimSpace(strings.TrimSuffix(t, "*/"))
		t = strings.TrimSpace(strings.TrimLeft(t, "/*#"))
		t = strings.TrimSpace(strings.Trim(t, `"'`)) // a Python docstring's quotes
		if strings.HasPrefix(t, "go:") || (t == "" || t[0] == '@') && b.Len() == 0 {
			continue // a directive, or nothing yet
		}
		if t == "" || t[0] == '@' {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
		if b.Len() >= maxSynopsisBytes {
			break
		}
	}
	s := b.String()
	var pp, p rune // the two runes before q
	var ppp rune
	for i, q := range s {
		if q == ' ' && p == '.' && (!unicode.IsUpper(pp) || unicode.IsUpper(ppp)) {
			return s[:i]
		}
		ppp, pp, p = pp, p, q
	}
	if len(s) > maxSynopsisBytes {
		s = s[:maxSynopsisBytes]
		if i := strings.LastIndexByte(s, ' '); i > 0 {
			s = s[:i] // not a word cut in two, which the doc does not hold
		}
		s = strings.ToValidUTF8(s, "")
	}
	return s
}

// splitComments cuts the lines of a declaration's body into its comments
// and its code (see Parts.Comments), each joined by newlines: comment
// lines ("//", "/* … */" and their "*" lines; "#" in Python) and, on a
// line of code, what follows " // " (" # " in Python). A comment marker
// inside a string is taken for one: the cost is some code weighed as
// prose.
func splitComments(lang int, body []string) (comments, code string) {
	var cm, cd []string
	line, trailing := "//", " // "
	if lang == langPython {
		line, trailing = "#", " # "
	}
	inBlock := false
	for _, l := range body {
		t := strings.TrimSpace(l)
		switch {
		case inBlock:
			cm = append(cm, l)
			inBlock = !strings.Contains(t, "*/")
		case strings.HasPrefix(t, line):
			cm = append(cm, l)
		case lang != langPython && strings.HasPrefix(t, "/*"):
			cm = append(cm, l)
			inBlock = !strings.Contains(t[2:], "*/")
		default:
			if i := strings.Index(l, trailing); i >= 0 {
				cm = append(cm, l[i+1:])
				l = l[:i]
			}
			cd = append(cd, l)
		}
	}
	return strings.Join(cm, "\n"), strings.Join(cd, "\n")
}

// isDeprecated reports whether a declaration's doc comment or signature
// says it is deprecated (see Parts.Deprecated).
func isDeprecated(doc, sig string) bool {
	for line := range strings.Lines(doc) {
		t := strings.TrimLeft(line, " \t/*#\"'")
		if strings.HasPrefix(t, "Deprecated:") {
			return true
		}
	}
	for _, s := range [...]string{doc, sig} {
		if strings.Contains(s, "@deprecated") || strings.Contains(s, "@Deprecated") {
			return true
		}
	}
	return false
}

// isPrivate reports whether every name of symbol is private by the
// language's convention (see Parts.Private); text is the chunk's.
func isPrivate(lang int, symbol, text string) bool {
	if strings.HasPrefix(symbol, "package ") {
		return false
	}
	for _, name := range strings.Split(symbol, ",") {
		name = strings.TrimSpace(name)
		if name == "…" {
			continue
		}
		switch lang {
		case langGo:
			for _, part := range strings.Split(name, ".") {
				if r, _ := utf8.DecodeRuneInString(part); !unicode.IsUpper(r) {
					goto next
				}
			}
			return false
		case langPython, langJS:
			if k := strings.LastIndexByte(name, '.'); k >= 0 {
				name = name[k+1:]
			}
			if !strings.HasPrefix(name, "_") && !strings.HasPrefix(name, "#") {
				return false
			}
		case langJava:
			return strings.Contains(firstCodeLine(text), "private ")
		default:
			return false
		}
	next:
	}
	return true
}

// firstCodeLine is the first line of text that is not blank, a comment
// or an annotation.
func firstCodeLine(text string) string {
	for l := range strings.Lines(text) {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "@") {
			continue
		}
		return t
	}
	return ""
}

// opensBody reports whether a declaration's line t ends its signature.
func opensBody(lang int, t string) bool {
	if lang == langPython {
		return strings.HasSuffix(t, ":")
	}
	if lang == langGo && (t == "(" || strings.HasSuffix(t, " (") && !strings.HasPrefix(t, "func")) {
		return true // a group: const (, var (, type (
	}
	return !strings.HasSuffix(t, ",") && !strings.HasSuffix(t, "(")
}

// declares reports whether the signature lines name one of the chunk's
// symbols (its last dotted part: Do of Client.Do) or, in Go, start with a
// declaration's keyword (a group: var ( …): whether the chunk starts with
// the declaration rather than in its middle.
func declares(lang int, sig []string, symbol string) bool {
	text := strings.Join(sig, "\n")
	if lang == langGo {
		for _, k := range []string{"func ", "type ", "var ", "const ", "package "} {
			if strings.HasPrefix(text, k) {
				return true
			}
		}
	}
	for _, s := range strings.Split(symbol, ",") {
		s = strings.TrimSpace(s)
		if k := strings.LastIndexAny(s, ". "); k >= 0 {
			s = s[k+1:]
		}
		if s != "" && s != "…" && strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// docstringEnd is the number of lines of body that its leading Python
// docstring spans, 0 when it has none.
func docstringEnd(body []string) int {
	for n, l := range body {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		t = strings.TrimLeft(t, "rRbBuU")
		var q string
		switch {
		case strings.HasPrefix(t, `"""`):
			q = `"""`
		case strings.HasPrefix(t, `'''`):
			q = `'''`
		default:
			return 0
		}
		if strings.Contains(t[3:], q) {
			return n + 1
		}
		for m := n + 1; m < len(body); m++ {
			if strings.Contains(body[m], q) {
				return m + 1
			}
		}
		return len(body)
	}
	return 0
}

// declKeywords are the words that name what a declaration declares.
var declKeywords = map[string]bool{
	"func": true, "type": true, "const": true, "var": true, "package": true,
	"class": true, "def": true, "interface": true, "enum": true, "record": true,
	"function": true, "let": true, "struct": true, "trait": true, "impl": true,
	"module": true, "namespace": true,
}

// runs are the kinds of declaration whose body is code to run (and ""
// for a declaration without a keyword, a JavaScript method): the comments
// inside are notes on how it works, kept in Body, where those of a type,
// a constant group or a class document its members.
var runs = map[string]bool{"": true, "func": true, "def": true, "function": true, "impl": true}

// kindOf is the first declaration keyword of a signature's words, "" when
// there is none.
func kindOf(sig []string) string {
	for _, l := range sig {
		for _, w := range strings.FieldsFunc(l, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) {
			if declKeywords[w] {
				return w
			}
		}
	}
	return ""
}
