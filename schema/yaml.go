package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// decodeYAMLDocs decodes every document of a YAML stream as JSON data:
// maps with string keys, lists, strings, numbers, booleans and nulls.
func decodeYAMLDocs(data []byte) ([]any, error) {
	var out []any
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if v == nil {
			continue
		}
		j, err := ToJSON(v)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
}

// ToJSON turns decoded YAML into the data encoding/json would decode from
// the same document: times become strings, numbers float64.
func ToJSON(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("as JSON: %w", err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("as JSON: %w", err)
	}
	return out, nil
}

// DescribeFromYAML adds what a commented YAML file of root's type says
// about its fields to the schemas r made: a key's head comment becomes the
// field's description (it is written for the file's readers), the value a
// key has becomes its default, or its example when it is a non-empty list.
// The file's keys that are no field are left alone (the loader reports
// them).
func DescribeFromYAML(r *Reflector, root reflect.Type, file []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(file, &doc); err != nil {
		return fmt.Errorf("reading the commented file: %w", err)
	}
	if len(doc.Content) == 0 {
		return nil
	}
	r.describe(doc.Content[0], root)
	return nil
}

// describe annotates the properties of struct type t from mapping n.
func (r *Reflector) describe(n *yaml.Node, t reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind != yaml.MappingNode || t.Kind() != reflect.Struct || t.Name() == "" {
		return
	}
	def, _ := r.Defs()[DefName(t)].(Schema)
	props, _ := def["properties"].(Schema)
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		prop, ok := props[key.Value].(Schema)
		if !ok {
			continue
		}
		if c := commentLines(key.HeadComment); c != "" {
			prop["description"] = c
		}
		ft, ok := fieldType(t, key.Value)
		if !ok {
			continue
		}
		st := ft
		for st.Kind() == reflect.Pointer {
			st = st.Elem()
		}
		if st.Kind() == reflect.Struct && val.Kind == yaml.MappingNode && r.Types[st] == nil {
			r.describe(val, st)
			continue
		}
		var v any
		if err := val.Decode(&v); err != nil {
			continue
		}
		j, err := ToJSON(v)
		if err != nil {
			continue
		}
		if list, ok := j.([]any); ok && len(list) > 0 {
			prop["examples"] = []any{j}
		} else {
			prop["default"] = j
		}
	}
}

// fieldType is the type of t's field whose yaml key is key.
func fieldType(t reflect.Type, key string) (reflect.Type, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		if name == key {
			return f.Type, true
		}
	}
	return nil, false
}

// commentLines is a YAML comment block as text: its prose lines joined,
// lines that are indented or start with "-" (examples, lists) kept apart.
func commentLines(c string) string {
	var b strings.Builder
	for _, line := range strings.Split(c, "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "#")
		line = strings.TrimPrefix(line, " ")
		text := strings.TrimSpace(line)
		if text == "" || strings.HasPrefix(text, "yaml-language-server:") {
			continue
		}
		switch {
		case b.Len() == 0:
		case line != text || strings.HasPrefix(text, "-"):
			b.WriteString("\n")
		default:
			b.WriteString(" ")
		}
		b.WriteString(strings.TrimRight(line, " "))
	}
	return b.String()
}
