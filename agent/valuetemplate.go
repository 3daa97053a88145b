package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/steps"
)

// valueTemplate is a YAML value of free shape whose strings are templates,
// such as an action spec.
type valueTemplate struct {
	pos  Position
	kind yaml.Kind
	// scalars
	lit  any
	tmpl *tmpl
	ref  *steps.Ref // a string that is a reference ($state.x || $state.y)
	// mappings and lists
	keys  []string
	items []*valueTemplate
}

// compileValue turns a YAML node into a valueTemplate, parsing every string
// that contains "{{" as a template.
func compileValue(file, where string, n *yaml.Node, diags *Diagnostics) *valueTemplate {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	v := &valueTemplate{pos: Position{File: file, Line: n.Line, Column: n.Column}, kind: n.Kind}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			v.keys = append(v.keys, n.Content[i].Value)
			v.items = append(v.items, compileValue(file, where+"."+n.Content[i].Value, n.Content[i+1], diags))
		}
	case yaml.SequenceNode:
		for i, e := range n.Content {
			v.items = append(v.items, compileValue(file, fmt.Sprintf("%s[%d]", where, i), e, diags))
		}
	case yaml.ScalarNode:
		if err := n.Decode(&v.lit); err != nil {
			diags.add(SeverityError, v.pos, fmt.Sprintf("%s: %v", where, err))
		}
		s, ok := v.lit.(string)
		switch {
		case ok && steps.IsRef(s):
			ref, err := steps.ParseRef(s)
			if err != nil {
				diags.add(SeverityError, v.pos, fmt.Sprintf("%s: %v", where, err))
			}
			v.ref = ref
		case ok && strings.Contains(s, "{{"):
			tx := &Text{Src: s, Pos: v.pos, block: n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0}
			v.tmpl = compileText(where, tx, diags)
		}
	}
	return v
}

// renderEnv is what values render against: template data and the scope of
// references.
type renderEnv struct {
	// ctx is the request's or step's: rendering stops when it ends.
	ctx   context.Context
	data  map[string]any
	scope *steps.Scope
}

// render evaluates the value into plain Go data: templates rendered,
// references resolved to their typed values (nil when absent).
func (v *valueTemplate) render(env *renderEnv) (any, error) {
	return v.walk(func(leaf *valueTemplate) (any, error) {
		switch {
		case leaf.ref != nil:
			x, _ := leaf.ref.Resolve(env.scope)
			return x, nil
		case leaf.tmpl != nil:
			return execute(env.ctx, leaf.tmpl, env.data)
		}
		return leaf.lit, nil
	})
}

// literal is the value as written, templates unrendered and references
// left out (null).
func (v *valueTemplate) literal() any {
	x, _ := v.walk(func(leaf *valueTemplate) (any, error) {
		if leaf.ref != nil {
			return nil, nil
		}
		return leaf.lit, nil
	})
	return x
}

// hasRefs reports whether any leaf is a reference.
func (v *valueTemplate) hasRefs() bool {
	if v.ref != nil {
		return true
	}
	for _, it := range v.items {
		if it.hasRefs() {
			return true
		}
	}
	return false
}

// walk rebuilds the value as plain data, computing scalars with leaf.
func (v *valueTemplate) walk(leaf func(*valueTemplate) (any, error)) (any, error) {
	switch v.kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(v.keys))
		for i, k := range v.keys {
			x, err := v.items[i].walk(leaf)
			if err != nil {
				return nil, err
			}
			m[k] = x
		}
		return m, nil
	case yaml.SequenceNode:
		l := make([]any, len(v.items))
		for i, it := range v.items {
			x, err := it.walk(leaf)
			if err != nil {
				return nil, err
			}
			l[i] = x
		}
		return l, nil
	}
	return leaf(v)
}

// renderAction renders an action spec and validates the result.
func renderAction(vt *valueTemplate, env *renderEnv) (*actions.Action, error) {
	x, err := vt.render(env)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(x)
	if err != nil {
		return nil, fmt.Errorf("encoding action: %w", err)
	}
	a, err := actions.Parse(raw)
	if err != nil {
		return nil, err
	}
	dropUnusedNodeActions(a)
	if err := a.Validate(); err != nil {
		return nil, err
	}
	return a, nil
}

// dropUnusedNodeActions removes a tree's nodeActions for node types this
// tree does not have: a lazily loaded batch of children built from data (an
// expanded folder holding only files) lacks some types, and the plugin
// already has the gestures from the tree it merges the batch into. Trees
// written out in full are checked strictly at load time instead.
func dropUnusedNodeActions(a *actions.Action) {
	if a.Tree == nil {
		return
	}
	types := map[string]bool{}
	for _, n := range a.Tree.Nodes {
		types[n.Type] = true
	}
	a.Tree.NodeActions = slices.DeleteFunc(a.Tree.NodeActions, func(na actions.NodeAction) bool { return !types[na.NodeType] })
}

var templateErrLine = regexp.MustCompile(`^template: [^:]*:(\d+):(?:(\d+):)? ?(.*)$`)

// templateErrorPos maps a template parse error to its line in the file.
func templateErrorPos(tx *Text, err error) Position {
	p := tx.Pos
	m := templateErrLine.FindStringSubmatch(err.Error())
	if m == nil {
		return p
	}
	line, _ := strconv.Atoi(m[1])
	if tx.block {
		p.Line += line
	} else {
		p.Line += line - 1
	}
	return p
}

func templateErrorMessage(err error) string {
	if m := templateErrLine.FindStringSubmatch(err.Error()); m != nil {
		return m[3]
	}
	return err.Error()
}
