package agent

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"text/template"
	"text/template/parse"
)

// emptyFunc is appended to every printing pipeline so that a missing value
// renders as nothing instead of "<no value>" (PROTOCOL.md section 8).
const emptyFunc = "_orEmpty"

// tmpl is a parsed template with its fast form, when it has one.
type tmpl struct {
	*template.Template
	fast *fastTemplate
}

// parseTemplate compiles src, rewriting printing actions so missing values
// render empty.
func parseTemplate(name, src string) (*tmpl, error) {
	t, err := template.New(name).Funcs(TemplateFuncs()).Parse(src)
	if err != nil {
		return nil, err
	}
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			emptyMissing(tt.Tree, tt.Tree.Root)
		}
	}
	return &tmpl{Template: t, fast: compileFast(t)}, nil
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
func mentions(t *tmpl, name string) bool {
	found := false
	eachNode(t, func(n parse.Node) {
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

// eachNode calls fn for every node of every tree of t.
func eachNode(t *tmpl, fn func(parse.Node)) {
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
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			walk(tt.Tree.Root)
		}
	}
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

// execute renders t over data: with the fast evaluator when it can, else,
// and for every error (so that errors read as text/template writes them),
// with text/template.
func execute(t *tmpl, data any) (string, error) {
	if t.fast != nil {
		if s, err := t.fast.execute(data); err == nil {
			return s, nil
		}
	}
	data = concrete(data) // text/template gets the data built whole
	var b cappedBuffer
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// checkRestricted refuses what a template from an untrusted client could
// use to run for a long time or allocate without bound: defined templates
// (recursion), printf (widths), and nested range loops.
func checkRestricted(t *tmpl) error {
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

// containsTemplate reports whether s has template actions.
func containsTemplate(s string) bool { return strings.Contains(s, "{{") }
