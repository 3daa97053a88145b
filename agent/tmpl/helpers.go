package tmpl

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"reflect"
	"strings"
	"text/template"
	"unicode/utf8"
)

// helper is a template helper function. Helpers take their arguments as
// values of any type, so that a missing value (nil) works like an empty one,
// and check their arity themselves; text/template and the fast evaluator
// call the same functions. Each charges its render's budget for what it
// reads and, before it allocates, for the result it is about to make.
type helper func(b *budget, args ...any) (any, error)

// helpers are the functions prompt templates may use besides text/template's
// built-ins. Arguments put the piped value last.
var helpers = map[string]helper{
	emptyFunc:  orEmpty,
	tickFunc:   tick,
	rangeFunc:  rangeable,
	"default":  defaultValue,
	"trim":     stringFunc("trim", strings.TrimSpace, 0),
	"upper":    stringFunc("upper", strings.ToUpper, 1),
	"lower":    stringFunc("lower", strings.ToLower, 1),
	"basename": stringFunc("basename", basename, 0),
	"contains": containsFunc,
	"replace":  replaceFunc,
	"indent":   intStringFunc("indent", indent, indentSize),
	"head":     intStringFunc("head", head, noSize),
	"tail":     intStringFunc("tail", tail, noSize),
	"truncate": intStringFunc("truncate", Truncate, truncateSize),
	"join":     joinFunc,
	"json":     jsonFunc,
	"fence":    fenceFunc,
	"lines":    linesFunc,
}

// TemplateFuncs are the helper functions available to prompt templates, in
// addition to text/template's built-ins (and, or, not, len, index, print,
// printf, eq, ...). A render binds them to its own budget; these, which
// parsing uses, give each call a budget of its own.
func TemplateFuncs() template.FuncMap {
	m := make(template.FuncMap, len(helpers))
	for name, h := range helpers {
		m[name] = func(args ...any) (any, error) { return h(newBudget(context.Background()), args...) }
	}
	return m
}

func arity(name string, args []any, n int, usage string) error {
	if len(args) != n {
		return fmt.Errorf("%s takes %d arguments (%s), got %d", name, n, usage, len(args))
	}
	return nil
}

// toString renders a value as text: nothing for nil.
func toString(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	}
	return fmt.Sprint(v)
}

func toInt(name string, v any) (int, error) {
	switch n := v.(type) {
	case int:
		return n, nil
	case int64:
		return int(n), nil
	case float64:
		if n == float64(int(n)) {
			return int(n), nil
		}
	}
	return 0, fmt.Errorf("%s: %v is not a whole number", name, v)
}

// stringFunc is a helper of one text whose result is about the text's
// size (grows: it makes a new string) or a part of it (0: no allocation).
func stringFunc(name string, f func(string) string, grows int) helper {
	return func(b *budget, args ...any) (any, error) {
		if err := arity(name, args, 1, "text"); err != nil {
			return nil, err
		}
		s := toString(args[0])
		if err := b.spend(costUnit + len(s)); err != nil {
			return nil, err
		}
		if grows > 0 {
			if err := b.room(name, len(s)); err != nil {
				return nil, err
			}
		}
		return f(s), nil
	}
}

// noSize is the result size of helpers that return a part of their text.
func noSize(int, string) int { return 0 }

func intStringFunc(name string, f func(int, string) string, size func(int, string) int) helper {
	return func(b *budget, args ...any) (any, error) {
		if err := arity(name, args, 2, "N, text"); err != nil {
			return nil, err
		}
		n, err := toInt(name, args[0])
		if err != nil {
			return nil, err
		}
		s := toString(args[1])
		if err := b.spend(costUnit + len(s)); err != nil {
			return nil, err
		}
		if err := b.room(name, size(n, s)); err != nil {
			return nil, err
		}
		return f(n, s), nil
	}
}

func orEmpty(_ *budget, args ...any) (any, error) {
	if len(args) != 1 || args[0] == nil {
		return "", nil
	}
	return args[0], nil
}

// tick is called at the start of every range iteration and defined
// template: it charges the iteration and checks the render's context.
func tick(b *budget, _ ...any) (any, error) {
	return "", b.spend(iterCost)
}

// rangeable ends every range pipeline of a request-carried template: it
// refuses to loop over a number, which would loop that many times.
func rangeable(_ *budget, args ...any) (any, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("%s takes 1 argument", rangeFunc)
	}
	switch reflect.ValueOf(args[0]).Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8,
		reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr, reflect.Func, reflect.Chan:
		return nil, fmt.Errorf("range over %T is not allowed in request-carried templates", args[0])
	}
	return args[0], nil
}

// defaultValue is {{ .x | default "none" }}: the value, or the default
// when the value is empty.
func defaultValue(b *budget, args ...any) (any, error) {
	if err := arity("default", args, 2, "default, value"); err != nil {
		return nil, err
	}
	if err := b.spend(costUnit); err != nil {
		return nil, err
	}
	if isEmpty(args[1]) {
		return args[0], nil
	}
	return args[1], nil
}

func containsFunc(b *budget, args ...any) (any, error) {
	if err := arity("contains", args, 2, "substring, text"); err != nil {
		return nil, err
	}
	sub, s := toString(args[0]), toString(args[1])
	if err := b.spend(costUnit + len(sub) + len(s)); err != nil {
		return nil, err
	}
	return strings.Contains(s, sub), nil
}

func replaceFunc(b *budget, args ...any) (any, error) {
	if err := arity("replace", args, 3, "old, new, text"); err != nil {
		return nil, err
	}
	old, repl, s := toString(args[0]), toString(args[1]), toString(args[2])
	if err := b.spend(costUnit + len(old) + len(repl) + len(s)); err != nil {
		return nil, err
	}
	// Its size, counted before it is made: each match trades old for new;
	// an empty old matches before every rune and at the end.
	n := strings.Count(s, old)
	if n > 0 && len(repl) > len(old) && n > (maxRender-len(s))/(len(repl)-len(old)) {
		return nil, b.room("replace", maxRender+1)
	}
	if err := b.room("replace", len(s)+n*(len(repl)-len(old))); err != nil {
		return nil, err
	}
	return strings.ReplaceAll(s, old, repl), nil
}

// joinFunc joins the elements of a list, printed as text, with sep.
func joinFunc(b *budget, args ...any) (any, error) {
	if err := arity("join", args, 2, "separator, list"); err != nil {
		return nil, err
	}
	sep := toString(args[0])
	var parts []string
	switch l := args[1].(type) {
	case []string:
		parts = l
	case []any:
		parts = make([]string, len(l))
		for i, e := range l {
			parts[i] = toString(e)
		}
	default:
		rv := reflect.ValueOf(args[1])
		if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
			s := toString(args[1])
			return s, b.spend(costUnit + len(s))
		}
		parts = make([]string, rv.Len())
		for i := range parts {
			parts[i] = toString(rv.Index(i).Interface())
		}
	}
	if err := b.spend(costUnit + len(parts)*costUnit); err != nil {
		return nil, err
	}
	if len(parts) > 0 && len(sep) > maxRender/len(parts) {
		return nil, b.room("join", maxRender+1)
	}
	n := len(sep) * max(len(parts)-1, 0)
	for _, p := range parts {
		n += len(p)
		if n > maxRender {
			break
		}
	}
	if err := b.room("join", n); err != nil {
		return nil, err
	}
	return strings.Join(parts, sep), nil
}

func jsonFunc(b *budget, args ...any) (any, error) {
	if err := arity("json", args, 1, "value"); err != nil {
		return nil, err
	}
	size, known := jsonSize(args[0], maxRender-b.out+1)
	if err := b.room("json", size); err != nil {
		return nil, err
	}
	j, err := json.Marshal(args[0])
	if err == nil && !known {
		err = b.room("json", len(j))
	}
	return string(j), err
}

// jsonSize bounds the length of v's JSON encoding without making it,
// stopping once it passes limit. For the plain data templates get it is
// known (ok); for other values it is 0, and the caller charges the
// encoding once made.
func jsonSize(v any, limit int) (n int, ok bool) {
	switch t := v.(type) {
	case nil:
		return 4, true
	case bool:
		return 5, true
	case int, int64, float64:
		return 24, true
	case string:
		return jsonStringSize(t), true
	case []string:
		n = 2
		for _, e := range t {
			if n += jsonStringSize(e) + 1; n > limit {
				break
			}
		}
		return n, true
	case []any:
		n = 2
		for _, e := range t {
			m, ok := jsonSize(e, limit-n)
			if !ok {
				return 0, false
			}
			if n += m + 1; n > limit {
				break
			}
		}
		return n, true
	case map[string]any:
		n = 2
		for k, e := range t {
			m, ok := jsonSize(e, limit-n)
			if !ok {
				return 0, false
			}
			if n += jsonStringSize(k) + m + 2; n > limit {
				break
			}
		}
		return n, true
	}
	return 0, false
}

// jsonStringSize bounds the length of s as a JSON string: quoted, with
// what encoding/json escapes as \u00XX (6 bytes) counted so, and an invalid
// byte as its \ufffd.
func jsonStringSize(s string) int {
	n := len(s) + 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				n += 5
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			n += 5
		}
		i += size
	}
	return n
}

func fenceFunc(b *budget, args ...any) (any, error) {
	if err := arity("fence", args, 2, "language, text"); err != nil {
		return nil, err
	}
	lang, text := toString(args[0]), toString(args[1])
	if err := b.spend(costUnit + len(text)); err != nil {
		return nil, err
	}
	return fence(b, lang, text)
}

func linesFunc(b *budget, args ...any) (any, error) {
	if err := arity("lines", args, 1, "text"); err != nil {
		return nil, err
	}
	s := toString(args[0])
	if err := b.spend(costUnit + len(s)); err != nil {
		return nil, err
	}
	// The list holds a string header per line.
	const header = 16
	if n := strings.Count(s, "\n") + 1; n > (maxRender-b.out)/header {
		return nil, b.room("lines", maxRender+1)
	} else if err := b.room("lines", n*header); err != nil {
		return nil, err
	}
	return lines(s), nil
}

func isEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string:
		return t == ""
	case bool:
		return !t
	case int:
		return t == 0
	case float64:
		return t == 0
	case []any:
		return len(t) == 0
	case map[string]any:
		return len(t) == 0
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String, reflect.Slice, reflect.Map, reflect.Array:
		return rv.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return rv.IsNil()
	}
	return rv.IsZero()
}

// basename is the last element of a slash- or backslash-separated path.
func basename(p string) string {
	if p == "" {
		return ""
	}
	if i := strings.LastIndexByte(p, '\\'); i >= 0 && !strings.Contains(p[i:], "/") {
		return p[i+1:]
	}
	return path.Base(p)
}

// indent prefixes every non-empty line of s with n spaces; it allocates
// its result once (the caller has checked indentSize).
func indent(n int, s string) string {
	if n <= 0 {
		return s
	}
	var b strings.Builder
	b.Grow(indentSize(n, s))
	first := true
	for l := range strings.SplitSeq(s, "\n") {
		if !first {
			b.WriteByte('\n')
		}
		first = false
		if l != "" {
			for range n {
				b.WriteByte(' ')
			}
			b.WriteString(l)
		}
	}
	return b.String()
}

// indentSize is the length of indent(n, s), counted without making it.
func indentSize(n int, s string) int {
	if n <= 0 {
		return len(s)
	}
	full := 0 // non-empty lines
	for l := range strings.SplitSeq(s, "\n") {
		if l != "" {
			full++
		}
	}
	if full > 0 && n > (maxRender-len(s))/full {
		return maxRender + 1
	}
	return len(s) + full*n
}

// fence wraps text in a Markdown code fence longer than any backtick run
// inside it, with the language as the info string.
func fence(b *budget, lang, text string) (string, error) {
	// The longest run of backticks, found backtick by backtick: source
	// has few of them.
	longest := 0
	for i := strings.IndexByte(text, '`'); i >= 0; {
		run := len(text[i:]) - len(strings.TrimLeft(text[i:], "`"))
		longest = max(longest, run)
		next := strings.IndexByte(text[i+run:], '`')
		if next < 0 {
			break
		}
		i += run + next
	}
	f := "```"
	if longest >= 3 {
		f = strings.Repeat("`", longest+1)
	}
	body := strings.TrimSuffix(text, "\n")
	if err := b.room("fence", 2*len(f)+len(lang)+len(body)+2); err != nil {
		return "", err
	}
	// One concatenation is one allocation.
	return f + lang + "\n" + body + "\n" + f, nil
}

// lines splits s into lines.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// head keeps the first n lines of s, without splitting all of them.
func head(n int, s string) string {
	s = strings.TrimSuffix(s, "\n")
	end := 0
	for range max(n, 0) {
		i := strings.IndexByte(s[end:], '\n')
		if i < 0 {
			return s
		}
		end += i + 1
	}
	return strings.TrimSuffix(s[:end], "\n")
}

// tail keeps the last n lines of s, without splitting all of them.
func tail(n int, s string) string {
	s = strings.TrimSuffix(s, "\n")
	if n <= 0 {
		return ""
	}
	start := len(s)
	for range n {
		i := strings.LastIndexByte(s[:start], '\n')
		if i < 0 {
			return s
		}
		start = i
	}
	return s[start+1:]
}

// Truncate keeps at most n runes of s, marking a cut with "…".
func Truncate(n int, s string) string {
	i, end := 0, len(s)
	for at := range s {
		if i == max(n, 0) {
			end = at
			break
		}
		i++
	}
	if end == len(s) {
		return s
	}
	return s[:end] + "…"
}

// truncateSize bounds the length of truncate(n, s).
func truncateSize(_ int, s string) int { return len(s) + len("…") }
