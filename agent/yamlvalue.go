package agent

import (
	"go.yaml.in/yaml/v3"
)

// Value is a YAML value of free shape kept with its position, such as an
// action spec. Its strings are templates.
type Value struct {
	Pos  Position
	node *yaml.Node
}

// ValueKind is the shape of a Value.
type ValueKind int

// Shapes of a Value.
const (
	// ValueOther is an alias, a document or nothing.
	ValueOther ValueKind = iota
	ValueScalar
	ValueMapping
	ValueList
)

// Entry is one key of a mapping Value, with where the key is written.
type Entry struct {
	Key    string
	KeyPos Position
	Value  *Value
}

// child is n as a Value of v's file, at n's position.
func (v *Value) child(n *yaml.Node) *Value {
	return &Value{Pos: Position{File: v.Pos.File, Line: n.Line, Column: n.Column}, node: n}
}

// Kind is the value's shape as written (an alias is ValueOther; see
// Resolved).
func (v *Value) Kind() ValueKind {
	switch v.node.Kind {
	case yaml.ScalarNode:
		return ValueScalar
	case yaml.MappingNode:
		return ValueMapping
	case yaml.SequenceNode:
		return ValueList
	}
	return ValueOther
}

// Resolved is the value an alias stands for, or v itself.
func (v *Value) Resolved() *Value {
	if v.node.Kind != yaml.AliasNode {
		return v
	}
	n := v.node
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return v.child(n)
}

// Entries are the keys and values of a mapping, in the order written.
func (v *Value) Entries() []Entry {
	if v.node.Kind != yaml.MappingNode {
		return nil
	}
	out := make([]Entry, 0, len(v.node.Content)/2)
	for i := 0; i+1 < len(v.node.Content); i += 2 {
		k := v.node.Content[i]
		out = append(out, Entry{Key: k.Value, KeyPos: Position{File: v.Pos.File, Line: k.Line, Column: k.Column}, Value: v.child(v.node.Content[i+1])})
	}
	return out
}

// Items are the values of a list.
func (v *Value) Items() []*Value {
	if v.node.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]*Value, len(v.node.Content))
	for i, n := range v.node.Content {
		out[i] = v.child(n)
	}
	return out
}

// Scalar is a scalar's text as written, before any typing.
func (v *Value) Scalar() (string, bool) {
	if v.node.Kind != yaml.ScalarNode {
		return "", false
	}
	return v.node.Value, true
}

// Block reports whether a scalar is a literal or folded block, whose
// content starts on the line after Pos.
func (v *Value) Block() bool {
	return v.node.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0
}

// Decode types a scalar as YAML does: string, int, float64, bool or nil.
func (v *Value) Decode() (any, error) {
	var out any
	err := v.node.Decode(&out)
	return out, err
}

// Pick is a mapping of the entries whose key keep accepts, at v's position.
func (v *Value) Pick(keep func(key string) bool) *Value {
	n := &yaml.Node{Kind: yaml.MappingNode, Line: v.node.Line, Column: v.node.Column}
	for i := 0; i+1 < len(v.node.Content); i += 2 {
		if keep(v.node.Content[i].Value) {
			n.Content = append(n.Content, v.node.Content[i], v.node.Content[i+1])
		}
	}
	return &Value{Pos: v.Pos, node: n}
}

// Interface returns the value as plain Go data: map[string]any, []any,
// string, int, float64, bool or nil.
func (v *Value) Interface() any {
	if v == nil || v.node == nil {
		return nil
	}
	var out any
	if err := v.node.Decode(&out); err != nil {
		return nil
	}
	return normalize(out)
}

// normalize turns YAML's map[string]interface{} trees into JSON-ready data.
func normalize(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = normalize(e)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			if ks, ok := k.(string); ok {
				m[ks] = normalize(e)
			}
		}
		return m
	case []any:
		for i, e := range t {
			t[i] = normalize(e)
		}
		return t
	default:
		return v
	}
}
