package tmpl

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"text/template"
	"text/template/parse"

	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/internal/runes"
)

// fastTemplate evaluates the common subset of text/template directly over
// the plain data templates get (maps, slices, strings, numbers, bools),
// without reflection. It keeps text/template's results and errors by
// giving up: compileFast returns nil for a template that uses anything
// outside the subset, and execute reports errNotFast for a value it does
// not handle, after which the caller runs text/template itself.
type fastTemplate struct {
	root *parse.ListNode
	// lastLen is the length of the last output, the size the next one's
	// buffer starts at (prompts of one command are about the same size),
	// up to maxSizeHint.
	lastLen atomic.Int64
}

// maxSizeHint caps the buffer an output starts with: a huge prompt once
// does not make every later one start huge.
const maxSizeHint = 64 << 10

// errNotFast sends evaluation back to text/template.
var errNotFast = errors.New("not in the fast subset")

// missing is the value of a map key that is not there (text/template's
// "no value"): falsy, printed as nothing through orEmpty, nil as an argument.
type missingValue struct{}

var missing any = missingValue{}

// fastBuiltins are the text/template built-ins the fast path evaluates.
var fastBuiltins = []string{"and", "or", "not", "len", "index", "eq", "ne"}

// compileFast returns the fast form of t, or nil when t uses something the
// fast path does not evaluate: defined templates, variables other than $,
// declarations, break/continue, nil, non-integer numbers or other built-ins.
func compileFast(t *template.Template) *fastTemplate {
	if len(t.Templates()) != 1 || t.Tree == nil || !fastNode(t.Tree.Root) {
		return nil
	}
	return &fastTemplate{root: t.Tree.Root}
}

func fastNode(n parse.Node) bool {
	switch n := n.(type) {
	case nil:
		return true
	case *parse.ListNode:
		if n == nil {
			return true
		}
		for _, c := range n.Nodes {
			if !fastNode(c) {
				return false
			}
		}
		return true
	case *parse.TextNode, *parse.CommentNode, *parse.DotNode, *parse.FieldNode, *parse.StringNode, *parse.BoolNode:
		return true
	case *parse.NumberNode:
		// Only plain decimal integers: text/template makes ".0" or "1e3" a
		// float and 'a' a rune.
		return n.IsInt && runes.IsDecimal(strings.TrimPrefix(n.Text, "-"))
	case *parse.VariableNode:
		return len(n.Ident) > 0 && n.Ident[0] == "$"
	case *parse.IdentifierNode:
		_, ok := helpers[n.Ident]
		return ok || slices.Contains(fastBuiltins, n.Ident)
	case *parse.ChainNode:
		return fastNode(n.Node)
	case *parse.ActionNode:
		return fastNode(n.Pipe)
	case *parse.PipeNode:
		if n == nil {
			return true
		}
		if len(n.Decl) > 0 {
			return false
		}
		for _, c := range n.Cmds {
			for _, a := range c.Args {
				if !fastNode(a) {
					return false
				}
			}
		}
		return true
	case *parse.IfNode:
		return fastNode(n.Pipe) && fastNode(n.List) && fastNode(n.ElseList)
	case *parse.WithNode:
		return fastNode(n.Pipe) && fastNode(n.List) && fastNode(n.ElseList)
	case *parse.RangeNode:
		return fastNode(n.Pipe) && fastNode(n.List) && fastNode(n.ElseList)
	}
	return false
}

// fastState is one evaluation.
type fastState struct {
	root any
	b    *budget
	out  cappedBuffer
	// args is a stack of function arguments: a call pushes its own above
	// those of the calls it is nested in and pops them when it returns, so
	// that calls do not allocate argument slices (helpers keep no args).
	args    []any
	argsBuf [8]any
}

// execute renders the template over data, within b.
func (f *fastTemplate) execute(b *budget, data any) (string, error) {
	s := &fastState{root: data, b: b, out: newCappedBuffer(b, int(min(f.lastLen.Load(), maxSizeHint)))}
	s.args = s.argsBuf[:0]
	if err := s.walk(data, f.root); err != nil {
		return "", err
	}
	f.lastLen.Store(int64(s.out.Len()))
	return s.out.String(), nil
}

func (s *fastState) walk(dot any, n parse.Node) error {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Nodes {
			if err := s.walk(dot, c); err != nil {
				return err
			}
		}
	case *parse.TextNode:
		if _, err := s.out.Write(n.Text); err != nil {
			return err
		}
	case *parse.CommentNode:
	case *parse.ActionNode:
		v, err := s.pipe(dot, n.Pipe)
		if err != nil {
			return err
		}
		return s.print(v)
	case *parse.IfNode:
		return s.branch(dot, n.Pipe, n.List, n.ElseList, false)
	case *parse.WithNode:
		return s.branch(dot, n.Pipe, n.List, n.ElseList, true)
	case *parse.RangeNode:
		return s.rangeOver(dot, n)
	default:
		return errNotFast
	}
	return nil
}

func (s *fastState) print(v any) error {
	var text string
	switch t := concrete(v).(type) {
	case string:
		text = t
	case missingValue:
		return errNotFast // text/template would print "<no value>"; orEmpty prevents it
	default:
		text = fmt.Sprint(v)
	}
	_, err := s.out.WriteString(text)
	return err
}

func (s *fastState) branch(dot any, p *parse.PipeNode, list, elseList *parse.ListNode, with bool) error {
	v, err := s.pipe(dot, p)
	if err != nil {
		return err
	}
	ok, err := truth(v)
	if err != nil {
		return err
	}
	if ok {
		if with {
			dot = v
		}
		return s.walk(dot, list)
	}
	return s.walk(dot, elseList)
}

func (s *fastState) rangeOver(dot any, n *parse.RangeNode) error {
	v, err := s.pipe(dot, n.Pipe)
	if err != nil {
		return err
	}
	var items []any
	switch t := concrete(v).(type) {
	case []any:
		items = t
	case []string:
		items = make([]any, len(t))
		for i, e := range t {
			items[i] = e
		}
	case int:
		// text/template's range over an integer: 0 to n-1, each the dot.
		for i := range t {
			if err := s.walk(i, n.List); err != nil {
				return err
			}
		}
		if t <= 0 {
			return s.walk(dot, n.ElseList)
		}
		return nil
	case map[string]any:
		if err := s.b.spend(costUnit * len(t)); err != nil {
			return err
		}
		for _, k := range slices.Sorted(mapKeys(t)) {
			items = append(items, t[k])
		}
	case nil, missingValue:
	default:
		return errNotFast
	}
	if len(items) == 0 {
		return s.walk(dot, n.ElseList)
	}
	for _, it := range items {
		if err := s.walk(it, n.List); err != nil {
			return err
		}
	}
	return nil
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// pipe evaluates a pipeline: each command's result is the last argument of
// the next.
func (s *fastState) pipe(dot any, p *parse.PipeNode) (any, error) {
	var v any
	for i, c := range p.Cmds {
		var err error
		if v, err = s.command(dot, c, v, i > 0); err != nil {
			return nil, err
		}
	}
	return v, nil
}

func (s *fastState) command(dot any, c *parse.CommandNode, final any, hasFinal bool) (any, error) {
	if id, ok := c.Args[0].(*parse.IdentifierNode); ok {
		return s.call(dot, id.Ident, c.Args[1:], final, hasFinal)
	}
	if len(c.Args) > 1 || hasFinal {
		return nil, errNotFast // a method call or "can't give argument to non-function"
	}
	return s.value(dot, c.Args[0])
}

// value evaluates an operand.
func (s *fastState) value(dot any, n parse.Node) (any, error) {
	switch n := n.(type) {
	case *parse.DotNode:
		return dot, nil
	case *parse.FieldNode:
		return fields(dot, n.Ident)
	case *parse.VariableNode:
		return fields(s.root, n.Ident[1:])
	case *parse.ChainNode:
		v, err := s.value(dot, n.Node)
		if err != nil {
			return nil, err
		}
		return fields(v, n.Field)
	case *parse.PipeNode:
		return s.pipe(dot, n)
	case *parse.StringNode:
		return n.Text, nil
	case *parse.NumberNode:
		return int(n.Int64), nil
	case *parse.BoolNode:
		return n.True, nil
	}
	return nil, errNotFast
}

// fields follows a chain of map keys; a missing key gives missing, and
// following a key through it stays missing, as in text/template.
func fields(v any, idents []string) (any, error) {
	for _, id := range idents {
		switch m := v.(type) {
		case map[string]any:
			x, ok := m[id]
			if !ok {
				x = missing
			}
			v = x
		case contextvars.Fields:
			x, ok := m.Field(id)
			if !ok {
				x = missing
			}
			v = x
		case missingValue:
		default:
			return nil, errNotFast // text/template's error for fields of other values
		}
	}
	return v, nil
}

// arg turns a value into a function argument: missing becomes nil, and
// data read field by field is built whole.
func arg(v any) any {
	if _, ok := v.(missingValue); ok {
		return nil
	}
	return concrete(v)
}

// concrete is v, with data read field by field (contextvars.Fields) built
// whole: whatever the evaluator does with a value other than reading its
// fields, it does with what text/template would get.
func concrete(v any) any {
	if f, ok := v.(contextvars.Fields); ok {
		return f.Map()
	}
	return v
}

func (s *fastState) call(dot any, name string, argNodes []parse.Node, final any, hasFinal bool) (any, error) {
	if name == "and" || name == "or" {
		return s.andOr(dot, name, argNodes, final, hasFinal)
	}
	base := len(s.args)
	defer func() { s.args = s.args[:base] }()
	for _, a := range argNodes {
		v, err := s.value(dot, a)
		if err != nil {
			return nil, err
		}
		s.args = append(s.args, arg(v))
	}
	if hasFinal {
		s.args = append(s.args, arg(final))
	}
	args := s.args[base:]
	if h, ok := helpers[name]; ok {
		return h(s.b, args...)
	}
	return builtin(s.b, name, args)
}

// andOr short-circuits like text/template's and/or: the first falsy (and)
// or truthy (or) argument, or the last one.
func (s *fastState) andOr(dot any, name string, argNodes []parse.Node, final any, hasFinal bool) (any, error) {
	n := len(argNodes)
	if hasFinal {
		n++
	}
	if n == 0 {
		return nil, errNotFast
	}
	var v any
	for i := range n {
		if i < len(argNodes) {
			var err error
			if v, err = s.value(dot, argNodes[i]); err != nil {
				return nil, err
			}
		} else {
			v = final
		}
		t, err := truth(v)
		if err != nil {
			return nil, err
		}
		if t == (name == "or") {
			return v, nil
		}
	}
	return v, nil
}

// builtin evaluates not, len, index, eq and ne for the plain kinds; other
// cases go back to text/template for its exact result or error.
func builtin(b *budget, name string, args []any) (any, error) {
	if err := b.spend(costUnit); err != nil {
		return nil, err
	}
	switch name {
	case "not":
		if len(args) != 1 {
			return nil, errNotFast
		}
		t, err := truth(args[0])
		return !t, err
	case "len":
		if len(args) == 1 {
			switch t := args[0].(type) {
			case string:
				return len(t), nil
			case []any:
				return len(t), nil
			case []string:
				return len(t), nil
			case map[string]any:
				return len(t), nil
			}
		}
	case "index":
		return index(args)
	case "eq", "ne":
		if len(args) == 2 {
			// Comparing strings reads them.
			if x, ok := args[0].(string); ok {
				if err := b.spend(len(x)); err != nil {
					return nil, err
				}
			}
			if eq, ok := equal(args[0], args[1]); ok {
				return eq == (name == "eq"), nil
			}
		}
	}
	return nil, errNotFast
}

func index(args []any) (any, error) {
	if len(args) != 2 {
		return nil, errNotFast
	}
	switch c := args[0].(type) {
	case []any:
		if i, ok := args[1].(int); ok && i >= 0 && i < len(c) {
			return c[i], nil
		}
	case []string:
		if i, ok := args[1].(int); ok && i >= 0 && i < len(c) {
			return c[i], nil
		}
	case map[string]any:
		if k, ok := args[1].(string); ok {
			return c[k], nil
		}
	}
	return nil, errNotFast
}

// equal compares two values of the same plain kind.
func equal(a, b any) (bool, bool) {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return x == y, ok
	case int:
		y, ok := b.(int)
		return x == y, ok
	case bool:
		y, ok := b.(bool)
		return x == y, ok
	}
	return false, false
}

// truth is text/template's notion of true for the plain kinds.
func truth(v any) (bool, error) {
	switch t := v.(type) {
	case nil, missingValue:
		return false, nil
	case bool:
		return t, nil
	case string:
		return t != "", nil
	case int:
		return t != 0, nil
	case float64:
		return t != 0, nil
	case []any:
		return len(t) > 0, nil
	case []string:
		return len(t) > 0, nil
	case map[string]any:
		return len(t) > 0, nil
	case contextvars.Fields:
		return len(t.Map()) > 0, nil
	}
	return false, errNotFast
}
