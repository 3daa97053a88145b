package tmpl

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"text/template"
	"text/template/parse"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/apierr"
)

// The helpers the gateway adds to templates itself.
const (
	// emptyFunc is appended to every printing pipeline so that a missing
	// value renders as nothing instead of "<no value>" (docs/protocol.md
	// §8).
	emptyFunc = "_orEmpty"
	// tickFunc starts every range body and defined template (addTicks).
	tickFunc = "_tick"
	// rangeFunc ends every range pipeline of a request-carried template
	// (restrict).
	rangeFunc = "_rangeable"
)

// Template is a parsed template with its fast form, when it has one.
type Template struct {
	*template.Template
	fast *fastTemplate
	// bound holds *boundTemplate: clones of the template whose helpers are
	// bound to a budget of their own, each used by one render at a time
	// (binding a clone per render costs more than the render).
	bound sync.Pool
}

// Fast reports whether the template renders on the fast path (the subset
// evaluated without reflection).
func (t *Template) Fast() bool { return t.fast != nil }

// boundTemplate is a clone of a template with its helpers bound to b.
type boundTemplate struct {
	t *template.Template
	b *budget
}

// boundClone takes a clone bound to a budget from the pool, or makes one.
func (t *Template) boundClone() (*boundTemplate, error) {
	if bt, ok := t.bound.Get().(*boundTemplate); ok {
		return bt, nil
	}
	c, err := t.Clone() // shares t's parse trees
	if err != nil {
		return nil, fmt.Errorf("cloning template %s: %w", t.Name(), err)
	}
	b := &budget{}
	return &boundTemplate{t: c.Funcs(b.funcs()), b: b}, nil
}

// parseTemplate compiles src, rewriting printing actions so missing values
// render empty.
func parseTemplate(name, src string) (*Template, error) {
	t, err := template.New(name).Funcs(TemplateFuncs()).Parse(src)
	if err != nil {
		return nil, err
	}
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			emptyMissing(tt.Tree, tt.Tree.Root)
		}
	}
	addTicks(t)
	return &Template{Template: t, fast: compileFast(t)}, nil
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

// Mentions reports whether the template refers to the named top-level key,
// as a field (.name) or a string ("name", e.g. in index).
func Mentions(t *Template, name string) bool {
	found := false
	EachNode(t, func(n parse.Node) {
		switch n := n.(type) {
		case *parse.FieldNode:
			found = found || (len(n.Ident) > 0 && n.Ident[0] == name)
		case *parse.ChainNode:
			found = found || (len(n.Field) > 0 && n.Field[0] == name)
		case *parse.StringNode:
			found = found || n.Text == name
		}
	})
	return found
}

// EachNode calls fn for every node of every tree of t.
func EachNode(t *Template, fn func(parse.Node)) {
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			eachTreeNode(tt.Tree.Root, fn)
		}
	}
}

// eachTreeNode calls fn for n and every node under it.
func eachTreeNode(root parse.Node, fn func(parse.Node)) {
	var walk func(n parse.Node)
	walk = func(n parse.Node) {
		if n == nil || reflect.ValueOf(n).IsNil() {
			return
		}
		fn(n)
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
		case *parse.ChainNode:
			walk(n.Node)
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
	walk(root)
}

// cappedBuffer is the output of a render. It charges the render's budget
// for every write, refusing one that would pass maxRender before it grows,
// and it doubles its buffer up to maxRender, so that the buffers of a
// render come to at most twice its output (append grows a large buffer by
// a quarter, and Grow overshoots the cap).
type cappedBuffer struct {
	b   *budget
	buf *strings.Builder
}

func newCappedBuffer(b *budget, hint int) cappedBuffer {
	w := cappedBuffer{b: b, buf: new(strings.Builder)}
	w.buf.Grow(hint)
	return w
}

// room charges n bytes and makes room for them.
func (w *cappedBuffer) room(n int) error {
	if err := w.b.write(n); err != nil {
		return err
	}
	if c := w.buf.Cap(); c-w.buf.Len() < n {
		buf := new(strings.Builder)
		buf.Grow(min(max(2*c, w.buf.Len()+n), maxRender))
		buf.WriteString(w.buf.String())
		w.buf = buf
	}
	return nil
}

func (w *cappedBuffer) Write(p []byte) (int, error) {
	if err := w.room(len(p)); err != nil {
		return 0, err
	}
	return w.buf.Write(p)
}

// WriteString is Write for a string.
func (w *cappedBuffer) WriteString(s string) (int, error) {
	if err := w.room(len(s)); err != nil {
		return 0, err
	}
	return w.buf.WriteString(s)
}

// Len is the length of the output.
func (w *cappedBuffer) Len() int { return w.buf.Len() }

// String is the output.
func (w *cappedBuffer) String() string { return w.buf.String() }

// Execute renders t over data within the bounds of one render (budget.go),
// stopping when ctx ends: with the fast evaluator when it can, else, and
// for every error but those bounds (so that errors read as text/template
// writes them), with text/template.
func Execute(ctx context.Context, t *Template, data any) (string, error) {
	b := newBudget(ctx)
	if t.fast != nil {
		s, err := t.fast.execute(b, data)
		if err == nil || isLimit(err) {
			return s, err
		}
		b.out = 0 // that output is dropped; the work done stays spent
	}
	data = concrete(data) // text/template gets the data built whole
	bt, err := t.boundClone()
	if err != nil {
		return "", err
	}
	*bt.b = *b // the work done so far stays spent
	defer func() {
		*bt.b = budget{} // the pool keeps no context
		t.bound.Put(bt)
	}()
	w := newCappedBuffer(bt.b, 0)
	if err := bt.t.Execute(&w, data); err != nil {
		return "", err
	}
	return w.String(), nil
}

// addTicks puts a call of tickFunc at the start of every range body and of
// every defined template: the places a template repeats work, which it
// charges and where it checks that its request is still there.
func addTicks(t *template.Template) {
	for _, tt := range t.Templates() {
		if tt.Tree == nil {
			continue
		}
		if tt.Name() != t.Name() {
			prependTick(tt.Tree, tt.Tree.Root)
		}
		eachTreeNode(tt.Tree.Root, func(n parse.Node) {
			if r, ok := n.(*parse.RangeNode); ok {
				prependTick(tt.Tree, r.List)
			}
		})
	}
}

func prependTick(tree *parse.Tree, l *parse.ListNode) {
	if l == nil {
		return
	}
	id := parse.NewIdentifier(tickFunc).SetTree(tree).SetPos(l.Pos)
	cmd := &parse.CommandNode{NodeType: parse.NodeCommand, Pos: l.Pos, Args: []parse.Node{id}}
	pipe := &parse.PipeNode{NodeType: parse.NodePipe, Pos: l.Pos, Line: 0, Cmds: []*parse.CommandNode{cmd}}
	act := &parse.ActionNode{NodeType: parse.NodeAction, Pos: l.Pos, Pipe: pipe}
	l.Nodes = append([]parse.Node{act}, l.Nodes...)
}

// restrictedFuncs are the functions request-carried templates may call
// besides the helpers: the built-ins that cost a bounded amount each.
// print, println, printf (widths), html, js, urlquery (escapes that grow
// their text) and call are refused.
var restrictedFuncs = []string{"and", "or", "not", "len", "index", "slice", "eq", "ne", "lt", "le", "gt", "ge"}

// CheckRestricted refuses, at compile time, what a template from an
// untrusted client could use to run for a long time or allocate without
// bound: defined templates (recursion), functions outside the helpers and
// restrictedFuncs, nested range loops, and range over a number, a length or
// a variable (a loop of as many iterations as the client writes). Then it
// makes every range pipeline end in rangeFunc, which refuses at run time to
// loop over a number that came from the data.
func CheckRestricted(t *Template) error {
	if len(t.Templates()) > 1 {
		return errors.New("define and block are not allowed in request-carried templates")
	}
	var err error
	var ranges []*parse.RangeNode
	var walk func(n parse.Node, depth int)
	walk = func(n parse.Node, depth int) {
		if err != nil || n == nil || reflect.ValueOf(n).IsNil() {
			return
		}
		switch n := n.(type) {
		case *parse.ListNode:
			for _, c := range n.Nodes {
				walk(c, depth)
			}
		case *parse.TemplateNode:
			err = errors.New("template calls are not allowed in request-carried templates")
		case *parse.ActionNode:
			walk(n.Pipe, depth)
		case *parse.PipeNode:
			for _, c := range n.Cmds {
				walk(c, depth)
			}
		case *parse.CommandNode:
			for _, a := range n.Args {
				walk(a, depth)
			}
		case *parse.ChainNode:
			walk(n.Node, depth)
		case *parse.IdentifierNode:
			if _, ok := helpers[n.Ident]; !ok && !slices.Contains(restrictedFuncs, n.Ident) {
				err = fmt.Errorf("%s is not allowed in request-carried templates", n.Ident)
			}
		case *parse.RangeNode:
			if depth > 0 {
				err = errors.New("nested range is not allowed in request-carried templates")
				return
			}
			if what := countedRange(n.Pipe); what != "" {
				err = fmt.Errorf("range over %s is not allowed in request-carried templates (at %q)", what, n.Pipe)
				return
			}
			ranges = append(ranges, n)
			walk(n.Pipe, depth)
			walk(n.List, depth+1)
			walk(n.ElseList, depth)
		case *parse.IfNode:
			walk(n.Pipe, depth)
			walk(n.List, depth)
			walk(n.ElseList, depth)
		case *parse.WithNode:
			walk(n.Pipe, depth)
			walk(n.List, depth)
			walk(n.ElseList, depth)
		}
	}
	walk(t.Tree.Root, 0)
	if err != nil {
		return err
	}
	for _, r := range ranges {
		id := parse.NewIdentifier(rangeFunc).SetTree(t.Tree).SetPos(r.Pipe.Pos)
		r.Pipe.Cmds = append(r.Pipe.Cmds, &parse.CommandNode{NodeType: parse.NodeCommand, Pos: r.Pipe.Pos, Args: []parse.Node{id}})
	}
	return nil
}

// countedRange tells what a range pipeline loops over when that is a count
// rather than data: a number, a length, or a variable (which only holds
// what the template computed); "" otherwise.
func countedRange(p *parse.PipeNode) string {
	if p == nil || len(p.Cmds) == 0 {
		return ""
	}
	c := p.Cmds[len(p.Cmds)-1]
	if len(c.Args) == 0 {
		return ""
	}
	switch a := c.Args[0].(type) {
	case *parse.NumberNode:
		return "an integer"
	case *parse.IdentifierNode:
		if a.Ident == "len" {
			return "an integer (a length)"
		}
	case *parse.VariableNode:
		if len(a.Ident) == 0 || a.Ident[0] != "$" {
			return "a variable"
		}
	case *parse.PipeNode:
		return countedRange(a)
	}
	return ""
}

// ContainsTemplate reports whether s has template actions.
func ContainsTemplate(s string) bool { return strings.Contains(s, "{{") }

// CompileText parses a template, reporting errors at the line they are on.
func CompileText(where string, tx *agent.Text, diags *agent.Diagnostics) *Template {
	t, err := parseTemplate(templateName(where), tx.Src)
	if err != nil {
		diags.Add(agent.SeverityError, templateErrorPos(tx, err), fmt.Sprintf("%s: bad template: %s", where, templateErrorMessage(err)))
		return nil
	}
	return t
}

var templateNamer = strings.NewReplacer(`command "`, "", `": `, ".", `"`, "", ": ", ".", " ", "_")

// templateName turns `command "x": reply` into `x.reply`, a name without
// colons so that template error positions stay parseable.
func templateName(where string) string { return templateNamer.Replace(where) }

// RenderError is a failed render as the client sees it.
func RenderError(err error) error {
	if errors.Is(err, context.Canceled) {
		return apierr.Canceled(err) // the request ended while a template rendered
	}
	return apierr.New(apierr.CodeTemplateError, "a template of this command failed: "+templateErrorMessage(err)).Wrap(err).
		Suggest("the agent's author should check the template with `agentgw lint`")
}
