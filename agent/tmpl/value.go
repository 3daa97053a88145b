package tmpl

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/plan"
)

// Value is a YAML value of free shape whose strings are templates,
// such as an action spec.
type Value struct {
	Pos  agent.Position
	kind agent.ValueKind
	// scalars
	Lit  any
	Tmpl *Template
	Ref  *plan.Ref // a string that is a reference ($state.x || $state.y)
	// mappings and lists
	keys  []string
	Items []*Value
}

// CompileValue turns a definition's value into a Value, parsing every
// string that contains "{{" as a template.
func CompileValue(where string, val *agent.Value, diags *agent.Diagnostics) *Value {
	val = val.Resolved()
	v := &Value{Pos: val.Pos, kind: val.Kind()}
	switch v.kind {
	case agent.ValueMapping:
		for _, e := range val.Entries() {
			v.keys = append(v.keys, e.Key)
			v.Items = append(v.Items, CompileValue(where+"."+e.Key, e.Value, diags))
		}
	case agent.ValueList:
		for i, it := range val.Items() {
			v.Items = append(v.Items, CompileValue(fmt.Sprintf("%s[%d]", where, i), it, diags))
		}
	case agent.ValueScalar:
		lit, err := val.Decode()
		v.Lit = lit
		if err != nil {
			diags.Add(agent.SeverityError, v.Pos, fmt.Sprintf("%s: %v", where, err))
		}
		s, ok := v.Lit.(string)
		switch {
		case ok && plan.IsRef(s):
			ref, err := plan.ParseRef(s)
			if err != nil {
				diags.Add(agent.SeverityError, v.Pos, fmt.Sprintf("%s: %v", where, err))
			}
			v.Ref = ref
		case ok && strings.Contains(s, "{{"):
			tx := &agent.Text{Src: s, Pos: v.Pos, Block: val.Block()}
			v.Tmpl = CompileText(where, tx, diags)
		}
	}
	return v
}

// Env is what values render against: template data and the scope of
// references.
type Env struct {
	// ctx is the request's or step's: rendering stops when it ends.
	Ctx   context.Context
	Data  map[string]any
	Scope *plan.Scope
}

// Render evaluates the value into plain Go data: templates rendered,
// references resolved to their typed values (nil when absent).
func (v *Value) Render(env *Env) (any, error) {
	return v.walk(func(leaf *Value) (any, error) {
		switch {
		case leaf.Ref != nil:
			x, _ := leaf.Ref.Resolve(env.Scope)
			return x, nil
		case leaf.Tmpl != nil:
			return Execute(env.Ctx, leaf.Tmpl, env.Data)
		}
		return leaf.Lit, nil
	})
}

// Literal is the value as written, templates unrendered and references
// left out (null).
func (v *Value) Literal() any {
	x, _ := v.walk(func(leaf *Value) (any, error) {
		if leaf.Ref != nil {
			return nil, nil
		}
		return leaf.Lit, nil
	})
	return x
}

// HasRefs reports whether any leaf is a reference.
func (v *Value) HasRefs() bool {
	if v.Ref != nil {
		return true
	}
	for _, it := range v.Items {
		if it.HasRefs() {
			return true
		}
	}
	return false
}

// walk rebuilds the value as plain data, computing scalars with leaf.
func (v *Value) walk(leaf func(*Value) (any, error)) (any, error) {
	switch v.kind {
	case agent.ValueMapping:
		m := make(map[string]any, len(v.keys))
		for i, k := range v.keys {
			x, err := v.Items[i].walk(leaf)
			if err != nil {
				return nil, err
			}
			m[k] = x
		}
		return m, nil
	case agent.ValueList:
		l := make([]any, len(v.Items))
		for i, it := range v.Items {
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

// RenderAction renders an action spec and validates the result.
func RenderAction(vt *Value, env *Env) (*actions.Action, error) {
	x, err := vt.Render(env)
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
func templateErrorPos(tx *agent.Text, err error) agent.Position {
	p := tx.Pos
	m := templateErrLine.FindStringSubmatch(err.Error())
	if m == nil {
		return p
	}
	line, _ := strconv.Atoi(m[1])
	if tx.Block {
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
