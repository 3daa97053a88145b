package agent

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentgw/agentgw/actions"
)

// valueTemplate is a YAML value of free shape whose strings are templates,
// such as an action spec.
type valueTemplate struct {
	pos  Position
	kind yaml.Kind
	// scalars
	lit  any
	tmpl *tmpl
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
		if s, ok := v.lit.(string); ok && strings.Contains(s, "{{") {
			tx := &Text{Src: s, Pos: v.pos, block: n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0}
			v.tmpl = compileText(where, tx, diags)
		}
	}
	return v
}

// render evaluates the value over data into plain Go data.
func (v *valueTemplate) render(data any) (any, error) {
	return v.walk(func(leaf *valueTemplate) (any, error) {
		if leaf.tmpl != nil {
			return execute(leaf.tmpl, data)
		}
		return leaf.lit, nil
	})
}

// literal is the value as written, templates unrendered.
func (v *valueTemplate) literal() any {
	x, _ := v.walk(func(leaf *valueTemplate) (any, error) { return leaf.lit, nil })
	return x
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

// compileAction compiles an action spec and validates its static shape.
func compileAction(where string, val *Value, diags *Diagnostics) *valueTemplate {
	before := diags.Errors()
	vt := compileValue(val.Pos.File, where, val.node, diags)
	if diags.Errors() > before {
		return nil
	}
	if vt.kind != yaml.MappingNode {
		diags.add(SeverityError, val.Pos, where+": an action is a mapping with action and data")
		return nil
	}
	raw, err := json.Marshal(vt.literal())
	if err != nil {
		diags.add(SeverityError, val.Pos, fmt.Sprintf("%s: %v", where, err))
		return nil
	}
	a, err := actions.Parse(raw)
	if err == nil {
		err = a.Validate()
	}
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			diags.add(SeverityError, val.Pos, fmt.Sprintf("%s: %s", where, line))
		}
		return nil
	}
	return vt
}

// renderAction renders an action spec and validates the result.
func renderAction(vt *valueTemplate, data any) (*actions.Action, error) {
	x, err := vt.render(data)
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
	if err := a.Validate(); err != nil {
		return nil, err
	}
	return a, nil
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
