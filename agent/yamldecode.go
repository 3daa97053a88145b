package agent

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/agentgw/agentgw/internal/suggest"
)

// NodeDecoder fills Go structs from YAML nodes strictly, reporting every
// problem with its file position instead of stopping at the first.
type NodeDecoder struct {
	// File names the file in positions; Diags collects the problems.
	File  string
	Diags *Diagnostics
	// Kinds are the step kinds whose keys a step may have; nil knows none.
	Kinds KindSpecs
}

var (
	positionType = reflect.TypeFor[Position]()
	textType     = reflect.TypeFor[Text]()
	valueType    = reflect.TypeFor[Value]()
	durationType = reflect.TypeFor[time.Duration]()
	handlerType  = reflect.TypeFor[Handler]()
)

func (d *NodeDecoder) pos(n *yaml.Node) Position {
	return Position{File: d.File, Line: n.Line, Column: n.Column}
}

func (d *NodeDecoder) errorf(n *yaml.Node, format string, args ...any) {
	d.Diags.Add(SeverityError, d.pos(n), fmt.Sprintf(format, args...))
}

// resolve follows aliases and enters documents; nil is an empty document.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode || n.Kind == yaml.DocumentNode {
		if n.Kind == yaml.AliasNode {
			n = n.Alias
		} else if len(n.Content) > 0 {
			n = n.Content[0]
		} else {
			return nil
		}
	}
	return n
}

// DecodeYAML decodes the YAML document in data into out, a pointer; what
// names the value in messages. A syntax error is returned as the parser
// reports it (YAMLErrorPos places it); other problems go to d.Diags.
func (d *NodeDecoder) DecodeYAML(data []byte, out any, what string) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return err
	}
	d.decode(&doc, reflect.ValueOf(out).Elem(), what)
	return nil
}

// DecodeValue decodes a Value into out, a pointer; what names it in
// messages.
func (d *NodeDecoder) DecodeValue(v *Value, out any, what string) {
	d.decode(v.node, reflect.ValueOf(out).Elem(), what)
}

// decode fills v (addressable) from n; what names the value in messages.
func (d *NodeDecoder) decode(n *yaml.Node, v reflect.Value, what string) {
	n = resolve(n)
	if n == nil || isNull(n) {
		return
	}
	t := v.Type()
	switch {
	case t == textType:
		if n.Kind != yaml.ScalarNode {
			d.errorf(n, "%s: expected a string, got %s", what, kindName(n))
			return
		}
		block := n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0
		v.Set(reflect.ValueOf(Text{Src: n.Value, Pos: d.pos(n), Block: block}))
		return
	case t == valueType:
		// A key given twice would make the value unreadable later.
		d.duplicateKeys(n, what)
		v.Set(reflect.ValueOf(Value{Pos: d.pos(n), node: n}))
		return
	case t == durationType:
		d.decodeDuration(n, v, what)
		return
	case t == handlerType && n.Kind == yaml.ScalarNode:
		v.Set(reflect.ValueOf(Handler{Pos: d.pos(n), Command: n.Value}))
		return
	case t == handlerType && n.Kind == yaml.SequenceNode:
		h := Handler{Pos: d.pos(n)}
		d.decode(n, reflect.ValueOf(&h.Steps).Elem(), what+".steps")
		v.Set(reflect.ValueOf(h))
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		// A list item of the wrong kind stays nil rather than becoming an
		// empty struct that later checks would complain about again.
		if t.Elem().Kind() == reflect.Struct && t.Elem() != textType && t.Elem() != valueType && t.Elem() != handlerType && n.Kind != yaml.MappingNode {
			d.errorf(n, "%s: expected a mapping, got %s", what, kindName(n))
			return
		}
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		d.decode(n, v.Elem(), what)
	case reflect.Struct:
		d.decodeStruct(n, v, what)
	case reflect.Slice:
		d.decodeSlice(n, v, what)
	case reflect.Map, reflect.Interface:
		if d.duplicateKeys(n, what) {
			return
		}
		var out any
		if err := n.Decode(&out); err != nil {
			d.errorf(n, "%s: %v", what, err)
			return
		}
		out = normalize(out)
		if t.Kind() == reflect.Map {
			m, ok := out.(map[string]any)
			if !ok {
				d.errorf(n, "%s: expected a mapping, got %s", what, kindName(n))
				return
			}
			out = m
		}
		v.Set(reflect.ValueOf(out))
	default:
		d.decodeScalar(n, v, what)
	}
}

func (d *NodeDecoder) decodeStruct(n *yaml.Node, v reflect.Value, what string) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "%s: expected a mapping, got %s", what, kindName(n))
		return
	}
	fields := structFields(v.Type())
	if f, ok := v.Type().FieldByName("Pos"); ok && f.Type == positionType {
		v.FieldByIndex(f.Index).Set(reflect.ValueOf(d.pos(n)))
	}
	names := fields.names
	var kinds []StepKind
	if fields.kinds != nil && d.Kinds != nil {
		names = slices.Concat(names[:fields.kindsAt], d.Kinds.KindNames(), names[fields.kindsAt:])
	}
	seen := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		f, ok := fields.byName[key.Value]
		if !ok && fields.kinds != nil && d.Kinds != nil {
			if spec, isKind := d.Kinds.KindSpec(key.Value); isKind {
				if sk, present := d.decodeKind(spec, val, what+"."+key.Value); present {
					kinds = append(kinds, sk)
				}
				continue
			}
		}
		if !ok {
			d.errorf(key, "%s: unknown field %q%s", what, key.Value, suggest.DidYouMean(key.Value, names))
			continue
		}
		if prev, dup := seen[f.name]; dup {
			d.errorf(key, "%s: field %q given twice (also as %q)", what, key.Value, prev)
			continue
		}
		seen[f.name] = key.Value
		d.decode(val, v.FieldByIndex(f.index), what+"."+f.name)
		if f.keyField != nil {
			v.FieldByIndex(f.keyField).SetString(key.Value)
		}
	}
	if len(kinds) > 0 {
		order := d.Kinds.KindNames()
		slices.SortStableFunc(kinds, func(a, b StepKind) int {
			return slices.Index(order, a.Name) - slices.Index(order, b.Name)
		})
		v.FieldByIndex(fields.kinds).Set(reflect.ValueOf(kinds))
	}
}

// duplicateKeys reports, at the later key, every key given twice in a
// mapping of the free-shape value n (action data, resolver options, model
// parameters), which the YAML library would otherwise reject as a whole
// at the value's start, or (in a Value) leave unreadable. Aliases are not
// followed: their mappings are checked where they are written. It tells
// whether there was one.
func (d *NodeDecoder) duplicateKeys(n *yaml.Node, what string) bool {
	found := false
	switch n.Kind {
	case yaml.MappingNode:
		seen := map[[2]string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i]
			if key.Kind == yaml.ScalarNode && key.Value != "<<" {
				k := [2]string{key.ShortTag(), key.Value}
				if prev, dup := seen[k]; dup {
					d.errorf(key, "%s: key %q given twice (first at %d:%d)", what, key.Value, prev.Line, prev.Column)
					found = true
					continue
				}
				seen[k] = key
			}
			found = d.duplicateKeys(n.Content[i+1], what+"."+key.Value) || found
		}
	case yaml.SequenceNode:
		for i, e := range n.Content {
			found = d.duplicateKeys(e, fmt.Sprintf("%s[%d]", what, i)) || found
		}
	}
	return found
}

// decodeKind decodes the configuration of a step's kind key. A null value,
// a struct configuration that is not a mapping, and an empty string leave
// the key absent, as they leave an optional field unset.
func (d *NodeDecoder) decodeKind(spec KindSpec, val *yaml.Node, what string) (StepKind, bool) {
	val = resolve(val)
	if val == nil || isNull(val) {
		return StepKind{}, false
	}
	t := reflect.TypeOf(spec.Config).Elem()
	if t.Kind() == reflect.Struct && t != textType && t != valueType && val.Kind != yaml.MappingNode {
		d.errorf(val, "%s: expected a mapping, got %s", what, kindName(val))
		return StepKind{}, false
	}
	p := reflect.New(t)
	d.decode(val, p.Elem(), what)
	if t.Kind() == reflect.String && p.Elem().String() == "" {
		return StepKind{}, false
	}
	return StepKind{Name: spec.Name, Config: p.Interface()}, true
}

func (d *NodeDecoder) decodeSlice(n *yaml.Node, v reflect.Value, what string) {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, "%s: expected a list, got %s", what, kindName(n))
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, e := range n.Content {
		d.decode(e, s.Index(i), fmt.Sprintf("%s[%d]", what, i))
	}
	v.Set(s)
}

func (d *NodeDecoder) decodeScalar(n *yaml.Node, v reflect.Value, what string) {
	if n.Kind != yaml.ScalarNode {
		d.errorf(n, "%s: expected a %s, got %s", what, v.Kind(), kindName(n))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(n.Value)
	case reflect.Bool:
		b, err := strconv.ParseBool(n.Value)
		if err != nil || n.Tag == "!!str" {
			d.errorf(n, "%s: expected true or false, got %q", what, n.Value)
			return
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int64, reflect.Int32:
		i, err := strconv.ParseInt(n.Value, 0, 64)
		if err != nil {
			d.errorf(n, "%s: expected an integer, got %q", what, n.Value)
			return
		}
		v.SetInt(i)
	case reflect.Float64:
		f, err := strconv.ParseFloat(n.Value, 64)
		if err != nil {
			d.errorf(n, "%s: expected a number, got %q", what, n.Value)
			return
		}
		v.SetFloat(f)
	default:
		d.errorf(n, "%s: unsupported field type %s", what, v.Type())
	}
}

func (d *NodeDecoder) decodeDuration(n *yaml.Node, v reflect.Value, what string) {
	if n.Kind != yaml.ScalarNode {
		d.errorf(n, "%s: expected a duration such as 30s, got %s", what, kindName(n))
		return
	}
	dur, err := time.ParseDuration(n.Value)
	if err != nil || dur < 0 {
		d.errorf(n, "%s: expected a duration such as 30s or 2m, got %q", what, n.Value)
		return
	}
	v.SetInt(int64(dur))
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	default:
		return "something else"
	}
}

type fieldInfo struct {
	index    []int
	name     string
	keyField []int // a string field that records which alias was used, or nil
}

type fieldSet struct {
	byName map[string]fieldInfo
	names  []string
	// kinds is the []StepKind field tagged yaml:",kinds", which takes the
	// keys of registered step kinds; their names go at kindsAt in names.
	kinds   []int
	kindsAt int
}

// structFields maps YAML keys (names and aliases) to struct fields, those
// of embedded structs tagged yaml:",inline" included. A string field named
// <Field>Key, tagged yaml:"-", records the key spelling used.
func structFields(t reflect.Type) fieldSet {
	fs := fieldSet{byName: map[string]fieldInfo{}}
	addFields(t, nil, &fs)
	return fs
}

func addFields(t reflect.Type, prefix []int, fs *fieldSet) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		index := append(append([]int(nil), prefix...), i)
		if f.Anonymous && strings.Contains(tag, ",inline") && f.Type.Kind() == reflect.Struct {
			addFields(f.Type, index, fs)
			continue
		}
		if tag == ",kinds" {
			fs.kinds, fs.kindsAt = index, len(fs.names)
			continue
		}
		if tag == "" || tag == "-" || !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		info := fieldInfo{index: index, name: name}
		if kf, ok := t.FieldByName(f.Name + "Key"); ok && kf.Type.Kind() == reflect.String {
			info.keyField = append(append([]int(nil), prefix...), kf.Index...)
		}
		fs.byName[name] = info
		fs.names = append(fs.names, name)
		for _, alias := range strings.Split(f.Tag.Get("alias"), ",") {
			if alias != "" {
				fs.byName[alias] = info
			}
		}
	}
}
