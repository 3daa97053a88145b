package agent

import (
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
// call the same functions.
type helper func(args ...any) (any, error)

// helpers are the functions prompt templates may use besides text/template's
// built-ins. Arguments put the piped value last.
var helpers = map[string]helper{
	emptyFunc:  orEmpty,
	"default":  defaultValue,
	"trim":     stringFunc("trim", strings.TrimSpace),
	"upper":    stringFunc("upper", strings.ToUpper),
	"lower":    stringFunc("lower", strings.ToLower),
	"basename": stringFunc("basename", basename),
	"contains": containsFunc,
	"replace":  replaceFunc,
	"indent":   intStringFunc("indent", indent),
	"head":     intStringFunc("head", head),
	"tail":     intStringFunc("tail", tail),
	"truncate": intStringFunc("truncate", truncate),
	"join":     joinFunc,
	"json":     jsonFunc,
	"fence":    fenceFunc,
	"lines":    linesFunc,
}

// TemplateFuncs are the helper functions available to prompt templates, in
// addition to text/template's built-ins (and, or, not, len, index, print,
// printf, eq, ...).
func TemplateFuncs() template.FuncMap {
	m := make(template.FuncMap, len(helpers))
	for name, h := range helpers {
		m[name] = h
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

func stringFunc(name string, f func(string) string) helper {
	return func(args ...any) (any, error) {
		if err := arity(name, args, 1, "text"); err != nil {
			return nil, err
		}
		return f(toString(args[0])), nil
	}
}

func intStringFunc(name string, f func(int, string) string) helper {
	return func(args ...any) (any, error) {
		if err := arity(name, args, 2, "N, text"); err != nil {
			return nil, err
		}
		n, err := toInt(name, args[0])
		if err != nil {
			return nil, err
		}
		return f(n, toString(args[1])), nil
	}
}

func orEmpty(args ...any) (any, error) {
	if len(args) != 1 || args[0] == nil {
		return "", nil
	}
	return args[0], nil
}

// defaultValue is {{ .x | default "none" }}: the value, or the default
// when the value is empty.
func defaultValue(args ...any) (any, error) {
	if err := arity("default", args, 2, "default, value"); err != nil {
		return nil, err
	}
	if isEmpty(args[1]) {
		return args[0], nil
	}
	return args[1], nil
}

func containsFunc(args ...any) (any, error) {
	if err := arity("contains", args, 2, "substring, text"); err != nil {
		return nil, err
	}
	return strings.Contains(toString(args[1]), toString(args[0])), nil
}

func replaceFunc(args ...any) (any, error) {
	if err := arity("replace", args, 3, "old, new, text"); err != nil {
		return nil, err
	}
	return strings.ReplaceAll(toString(args[2]), toString(args[0]), toString(args[1])), nil
}

// joinFunc joins the elements of a list, printed as text, with sep.
func joinFunc(args ...any) (any, error) {
	if err := arity("join", args, 2, "separator, list"); err != nil {
		return nil, err
	}
	sep := toString(args[0])
	switch l := args[1].(type) {
	case []string:
		return strings.Join(l, sep), nil
	case []any:
		parts := make([]string, len(l))
		for i, e := range l {
			parts[i] = toString(e)
		}
		return strings.Join(parts, sep), nil
	}
	rv := reflect.ValueOf(args[1])
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return toString(args[1]), nil
	}
	parts := make([]string, rv.Len())
	for i := range parts {
		parts[i] = toString(rv.Index(i).Interface())
	}
	return strings.Join(parts, sep), nil
}

func jsonFunc(args ...any) (any, error) {
	if err := arity("json", args, 1, "value"); err != nil {
		return nil, err
	}
	b, err := json.Marshal(args[0])
	return string(b), err
}

func fenceFunc(args ...any) (any, error) {
	if err := arity("fence", args, 2, "language, text"); err != nil {
		return nil, err
	}
	return fence(toString(args[0]), toString(args[1])), nil
}

func linesFunc(args ...any) (any, error) {
	if err := arity("lines", args, 1, "text"); err != nil {
		return nil, err
	}
	return lines(toString(args[0])), nil
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

// indent prefixes every non-empty line of s with n spaces.
func indent(n int, s string) string {
	pad := strings.Repeat(" ", max(n, 0))
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		if l != "" {
			ls[i] = pad + l
		}
	}
	return strings.Join(ls, "\n")
}

// fence wraps text in a Markdown code fence longer than any backtick run
// inside it, with the language as the info string.
func fence(lang, text string) string {
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
	// One concatenation is one allocation.
	return f + lang + "\n" + strings.TrimSuffix(text, "\n") + "\n" + f
}

// lines splits s into lines.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// head keeps the first n lines of s.
func head(n int, s string) string {
	ls := lines(s)
	if n < len(ls) {
		ls = ls[:max(n, 0)]
	}
	return strings.Join(ls, "\n")
}

// tail keeps the last n lines of s.
func tail(n int, s string) string {
	ls := lines(s)
	if n < len(ls) {
		ls = ls[len(ls)-max(n, 0):]
	}
	return strings.Join(ls, "\n")
}

// truncate keeps at most n runes of s, marking a cut with "…".
func truncate(n int, s string) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n, 0)]) + "…"
}
