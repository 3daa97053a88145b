package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"reflect"
	"strings"
	"text/template"
	"text/template/parse"
	"unicode/utf8"
)

// emptyFunc is appended to every printing pipeline so that a missing value
// renders as nothing instead of "<no value>" (PROTOCOL.md section 8).
const emptyFunc = "_orEmpty"

// TemplateFuncs are the helper functions available to prompt templates, in
// addition to text/template's built-ins (and, or, not, len, index, print,
// printf, eq, ...). Arguments put the piped value last.
func TemplateFuncs() template.FuncMap {
	return template.FuncMap{
		emptyFunc:  orEmpty,
		"default":  defaultValue,
		"trim":     strings.TrimSpace,
		"upper":    strings.ToUpper,
		"lower":    strings.ToLower,
		"contains": func(sub, s string) bool { return strings.Contains(s, sub) },
		"replace":  func(old, new, s string) string { return strings.ReplaceAll(s, old, new) },
		"indent":   indent,
		"join":     join,
		"json":     toJSON,
		"fence":    fence,
		"head":     head,
		"tail":     tail,
		"lines":    lines,
		"truncate": truncate,
		"basename": path.Base,
	}
}

// parseTemplate compiles src, rewriting printing actions so missing values
// render empty.
func parseTemplate(name, src string) (*template.Template, error) {
	t, err := template.New(name).Funcs(TemplateFuncs()).Parse(src)
	if err != nil {
		return nil, err
	}
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			emptyMissing(tt.Tree, tt.Tree.Root)
		}
	}
	return t, nil
}

func emptyMissing(tree *parse.Tree, n parse.Node) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			emptyMissing(tree, c)
		}
	case *parse.ActionNode:
		if len(n.Pipe.Decl) == 0 {
			id := parse.NewIdentifier(emptyFunc).SetTree(tree).SetPos(n.Pos)
			n.Pipe.Cmds = append(n.Pipe.Cmds, &parse.CommandNode{NodeType: parse.NodeCommand, Pos: n.Pos, Args: []parse.Node{id}})
		}
	case *parse.IfNode:
		emptyMissing(tree, n.List)
		emptyMissing(tree, n.ElseList)
	case *parse.RangeNode:
		emptyMissing(tree, n.List)
		emptyMissing(tree, n.ElseList)
	case *parse.WithNode:
		emptyMissing(tree, n.List)
		emptyMissing(tree, n.ElseList)
	}
}

// mentions reports whether the template refers to the named top-level key,
// as a field (.name) or a string ("name", e.g. in index).
func mentions(t *template.Template, name string) bool {
	found := false
	var walk func(n parse.Node)
	walk = func(n parse.Node) {
		if found || n == nil || reflect.ValueOf(n).IsNil() {
			return
		}
		switch n := n.(type) {
		case *parse.ListNode:
			for _, c := range n.Nodes {
				walk(c)
			}
		case *parse.ActionNode:
			walk(n.Pipe)
		case *parse.PipeNode:
			for _, c := range n.Cmds {
				walk(c)
			}
		case *parse.CommandNode:
			for _, a := range n.Args {
				walk(a)
			}
		case *parse.FieldNode:
			found = len(n.Ident) > 0 && n.Ident[0] == name
		case *parse.ChainNode:
			walk(n.Node)
			found = found || (len(n.Field) > 0 && n.Field[0] == name)
		case *parse.StringNode:
			found = n.Text == name
		case *parse.IfNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		case *parse.RangeNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		case *parse.WithNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		case *parse.TemplateNode:
			walk(n.Pipe)
		}
	}
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			walk(tt.Tree.Root)
		}
	}
	return found
}

// maxRender caps what one template may render, so that a runaway template
// fails with TEMPLATE_ERROR instead of exhausting memory.
const maxRender = 64 << 20

// errRenderTooLarge is returned when a template renders more than maxRender.
var errRenderTooLarge = fmt.Errorf("template output is over %d MiB", maxRender>>20)

// cappedBuffer is a bytes.Buffer that refuses to grow past maxRender.
type cappedBuffer struct{ bytes.Buffer }

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > maxRender {
		return 0, errRenderTooLarge
	}
	return b.Buffer.Write(p)
}

// execute renders t over data.
func execute(t *template.Template, data any) (string, error) {
	var b cappedBuffer
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// checkRestricted refuses what a template from an untrusted client could
// use to run for a long time or allocate without bound: defined templates
// (recursion), printf (widths), and nested range loops.
func checkRestricted(t *template.Template) error {
	if len(t.Templates()) > 1 {
		return errors.New("define and block are not allowed in request-carried templates")
	}
	var err error
	var walk func(n parse.Node, ranges int)
	walk = func(n parse.Node, ranges int) {
		if err != nil || n == nil || reflect.ValueOf(n).IsNil() {
			return
		}
		switch n := n.(type) {
		case *parse.ListNode:
			for _, c := range n.Nodes {
				walk(c, ranges)
			}
		case *parse.TemplateNode:
			err = errors.New("template calls are not allowed in request-carried templates")
		case *parse.ActionNode:
			walk(n.Pipe, ranges)
		case *parse.PipeNode:
			for _, c := range n.Cmds {
				walk(c, ranges)
			}
		case *parse.CommandNode:
			for _, a := range n.Args {
				walk(a, ranges)
			}
		case *parse.IdentifierNode:
			if n.Ident == "printf" {
				err = errors.New("printf is not allowed in request-carried templates")
			}
		case *parse.RangeNode:
			if ranges > 0 {
				err = errors.New("nested range is not allowed in request-carried templates")
			}
			walk(n.Pipe, ranges)
			walk(n.List, ranges+1)
			walk(n.ElseList, ranges)
		case *parse.IfNode:
			walk(n.Pipe, ranges)
			walk(n.List, ranges)
			walk(n.ElseList, ranges)
		case *parse.WithNode:
			walk(n.Pipe, ranges)
			walk(n.List, ranges)
			walk(n.ElseList, ranges)
		}
	}
	walk(t.Tree.Root, 0)
	return err
}

func orEmpty(v any) any {
	if v == nil {
		return ""
	}
	return v
}

func isEmpty(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String, reflect.Slice, reflect.Map, reflect.Array:
		return rv.Len() == 0
	case reflect.Bool:
		return !rv.Bool()
	case reflect.Pointer, reflect.Interface:
		return rv.IsNil()
	}
	return rv.IsZero()
}

// defaultValue returns v, or def when v is empty: {{ .x | default "none" }}.
func defaultValue(def, v any) any {
	if isEmpty(v) {
		return def
	}
	return v
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

// join joins the elements of a list, printed as text, with sep.
func join(sep string, list any) string {
	if s, ok := list.([]string); ok {
		return strings.Join(s, sep)
	}
	rv := reflect.ValueOf(list)
	if list == nil || (rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array) {
		return fmt.Sprint(orEmpty(list))
	}
	parts := make([]string, rv.Len())
	for i := range parts {
		parts[i] = fmt.Sprint(rv.Index(i).Interface())
	}
	return strings.Join(parts, sep)
}

func toJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// fence wraps text in a Markdown code fence longer than any backtick run
// inside it, with the language as the info string.
func fence(lang, text string) string {
	longest, run := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
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
