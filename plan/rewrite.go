package plan

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// rewrite turns a condition in the seed's syntax into expr-lang syntax, leaving string literals alone:
//
//   - the words AND and OR become and, or; null becomes nil
//   - the word NOT (or not) used as a prefix negates everything up to the next and/or (&&, ||) at its
//     level, as in the seed and SQL: NOT a == b is not (a == b). expr's own not binds tighter. ! keeps
//     expr's meaning.
//   - contains( becomes _contains( (contains is an infix operator in expr)
//   - a member segment holding a hyphen, steps.fetch-user, becomes steps["fetch-user"] (so subtraction
//     needs spaces around the minus: state.a - 1)
//   - a decimal member segment, state.items.0, becomes state.items[0]
//
// A segment is a name right after a dot that follows a name, ] or ); keywords there stay names.
func rewrite(src string) string {
	w := &rewriter{src: src}
	w.b.Grow(len(src) + 8)
	for w.i < len(src) {
		w.step()
	}
	w.closeNots(0)
	return w.b.String()
}

// rewriter holds the state of one rewrite.
type rewriter struct {
	src    string
	i      int
	b      strings.Builder
	member bool  // the previous token can be followed by a member access
	depth  int   // (, [ and { nesting
	nots   []int // the depths of the open NOT wrappers, innermost last
}

// step rewrites the token at w.i.
func (w *rewriter) step() {
	src, i := w.src, w.i
	c := src[i]
	switch {
	case c == '\'' || c == '"' || c == '`':
		w.emit(src[i:skipString(src, i)], false)
	case c == '.' && w.member && i+1 < len(src) && isDigit(src[i+1]):
		j := i + 1
		for j < len(src) && isDigit(src[j]) {
			j++
		}
		w.b.WriteString("[" + src[i+1:j] + "]")
		w.i = j
	case c == '.' && w.member && i+1 < len(src) && isWordStart(src[i+1]):
		j := scanSegment(src, i+1)
		if seg := src[i+1 : j]; strings.Contains(seg, "-") {
			w.b.WriteString("[" + strconv.Quote(seg) + "]")
		} else {
			w.b.WriteString(src[i:j])
		}
		w.i = j
	case isWordStart(c):
		j := i
		for j < len(src) && isWordByte(src[j]) {
			j++
		}
		w.word(src[i:j])
	case isDigit(c):
		w.emit(src[i:scanNumber(src, i)], false)
	default:
		w.punct(c)
	}
}

// emit writes the source text t and moves past it.
func (w *rewriter) emit(t string, member bool) {
	w.b.WriteString(t)
	w.i += len(t)
	w.member = member
}

// word rewrites a free-standing word.
func (w *rewriter) word(t string) {
	rest := w.src[w.i+len(t):]
	switch t {
	case "AND", "and", "OR", "or":
		w.closeNots(w.depth)
		w.b.WriteString(strings.ToLower(t))
		w.i += len(t)
		w.member = false
	case "NOT", "not":
		if infixAfterNot(rest) {
			w.emit("not", false)
			return
		}
		w.b.WriteString("not (")
		w.i += len(t)
		w.member = false
		w.nots = append(w.nots, w.depth)
	case "null":
		w.b.WriteString("nil")
		w.i += len(t)
		w.member = true
	case "contains":
		if strings.HasPrefix(strings.TrimLeft(rest, " \t\r\n"), "(") {
			w.b.WriteString("_")
		}
		w.emit(t, true)
	default:
		w.emit(t, true)
	}
}

// punct handles operators and brackets, closing NOT wrappers where their operand ends.
func (w *rewriter) punct(c byte) {
	src, i := w.src, w.i
	switch {
	case c == '(' || c == '[' || c == '{':
		w.depth++
	case c == ')' || c == ']' || c == '}':
		w.closeNots(w.depth)
		w.depth = max(w.depth-1, 0)
	case c == ',' || c == ':' || c == ';' || c == '|' || c == '&' && i+1 < len(src) && src[i+1] == '&':
		w.closeNots(w.depth)
	case c == '?' && !(i+1 < len(src) && src[i+1] == '.'):
		w.closeNots(w.depth)
	}
	_, n := utf8.DecodeRuneInString(src[i:])
	w.emit(src[i:i+n], c == ']' || c == ')')
}

// closeNots closes the NOT wrappers opened at depth d or deeper.
func (w *rewriter) closeNots(d int) {
	for len(w.nots) > 0 && w.nots[len(w.nots)-1] >= d {
		w.b.WriteByte(')')
		w.nots = w.nots[:len(w.nots)-1]
	}
}

// infixAfterNot reports whether the word after "not" makes it expr's infix "not in" (matches, ...).
func infixAfterNot(rest string) bool {
	rest = strings.TrimLeft(rest, " \t\r\n")
	j := 0
	for j < len(rest) && isWordByte(rest[j]) {
		j++
	}
	switch rest[:j] {
	case "in", "matches", "contains", "startsWith", "endsWith":
		return true
	}
	return false
}

// skipString returns the index just after the string literal starting at i (or the end of src).
func skipString(src string, i int) int {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		switch {
		case src[j] == '\\' && q != '`':
			j++
		case src[j] == q:
			return j + 1
		}
	}
	return len(src)
}

// scanSegment returns the end of a member segment starting at i: word bytes and hyphens followed by a
// word byte.
func scanSegment(src string, i int) int {
	j := i
	for j < len(src) && (isWordByte(src[j]) || (src[j] == '-' && j+1 < len(src) && isWordByte(src[j+1]))) {
		j++
	}
	return j
}

// scanNumber returns the end of a number literal starting at i (digits, one fraction, an exponent).
func scanNumber(src string, i int) int {
	j := i
	for j < len(src) && (isDigit(src[j]) || src[j] == '_') {
		j++
	}
	if j+1 < len(src) && src[j] == '.' && isDigit(src[j+1]) {
		j++
		for j < len(src) && isDigit(src[j]) {
			j++
		}
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		j++
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		for j < len(src) && isDigit(src[j]) {
			j++
		}
	}
	return j
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isWordStart(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
func isWordByte(c byte) bool { return isWordStart(c) || isDigit(c) }
