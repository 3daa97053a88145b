package agent

import (
	"go.yaml.in/yaml/v3"
)

// Value is a YAML value of free shape kept with its position, such as an
// action spec. Its strings are templates.
type Value struct {
	Pos  Position
	Node *yaml.Node
}

// Interface returns the value as plain Go data: map[string]any, []any,
// string, int, float64, bool or nil.
func (v *Value) Interface() any {
	if v == nil || v.Node == nil {
		return nil
	}
	var out any
	if err := v.Node.Decode(&out); err != nil {
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
