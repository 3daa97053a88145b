package schema

import (
	"fmt"
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/agent"
)

// Schema is one JSON Schema object, as encoding/json writes it (keys in
// sorted order, so the output is stable).
type Schema = map[string]any

// Draft is the JSON Schema dialect the schemas declare.
const Draft = "https://json-schema.org/draft/2020-12/schema"

// Reflector turns Go types into JSON Schemas the way a YAML decoder reads
// them: struct fields by their yaml tags, strictly (no other keys).
type Reflector struct {
	// Docs are the doc comments of types and fields (see Docs); a field's
	// doc tag wins over its comment.
	Docs Docs
	// Types are fixed schemas for types the decoder reads specially, such as
	// durations written as "30s".
	Types map[reflect.Type]Schema
	// Kinds are the step kinds whose keys a struct field tagged
	// yaml:",kinds" takes (agent.Step); nil knows none.
	Kinds agent.KindSpecs
	// Untagged names the key of an exported field without a yaml tag
	// (yaml.v3 uses the lowercased field name); nil skips such fields, as
	// agent's decoder does.
	Untagged func(field string) string
	// Patch adjusts the schema of a field or type after it is made, keyed
	// like Docs ("pkgpath.Type.Field" or "pkgpath.Type"): enums and
	// constraints the loader checks in code.
	Patch map[string]func(Schema)

	defs     Schema
	used     Docs
	packages map[string]bool
}

func (r *Reflector) init() {
	if r.defs == nil {
		r.defs = Schema{}
		r.used = Docs{}
		r.packages = map[string]bool{}
	}
}

// Defs are the named schemas made so far, by DefName.
func (r *Reflector) Defs() Schema { r.init(); return r.defs }

// UsedDocs are the entries of Docs the schemas made so far read: what a
// program needs to make them again.
func (r *Reflector) UsedDocs() Docs { r.init(); return r.used }

// Packages are the import paths of the named types met so far.
func (r *Reflector) Packages() []string {
	r.init()
	out := make([]string, 0, len(r.packages))
	for p := range r.packages {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// DefName names a struct type in $defs: its package's name and its own,
// such as agent.Command.
func DefName(t reflect.Type) string {
	return path.Base(t.PkgPath()) + "." + t.Name()
}

// Ref is a reference to the named schema name in $defs.
func Ref(name string) Schema { return Schema{"$ref": "#/$defs/" + name} }

// doc is the doc of key (a type or field key), noted as used.
func (r *Reflector) doc(key string) string {
	d, ok := r.Docs[key]
	if ok {
		r.used[key] = d
	}
	return d
}

// Reflect returns the schema of t: a $ref for named structs, whose schema
// goes to Defs.
func (r *Reflector) Reflect(t reflect.Type) Schema {
	r.init()
	if s, ok := r.Types[t]; ok {
		return clone(s)
	}
	if t.PkgPath() != "" {
		r.packages[t.PkgPath()] = true
	}
	switch t.Kind() {
	case reflect.Pointer:
		return r.Reflect(t.Elem())
	case reflect.String:
		return Schema{"type": "string"}
	case reflect.Bool:
		return Schema{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return Schema{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return Schema{"type": "number"}
	case reflect.Slice, reflect.Array:
		return Schema{"type": "array", "items": r.Reflect(t.Elem())}
	case reflect.Map:
		s := Schema{"type": "object"}
		if t.Elem().Kind() != reflect.Interface {
			s["additionalProperties"] = r.Reflect(t.Elem())
		}
		return s
	case reflect.Interface:
		return Schema{}
	case reflect.Struct:
		if t.Name() == "" {
			return r.structSchema(t)
		}
		name := DefName(t)
		if _, done := r.defs[name]; !done {
			r.defs[name] = Schema{} // a placeholder while the type refers to itself
			s := r.structSchema(t)
			typeKey := t.PkgPath() + "." + t.Name()
			if d := r.doc(typeKey); d != "" {
				s["description"] = d
			}
			if p := r.Patch[typeKey]; p != nil {
				p(s)
			}
			r.defs[name] = s
		}
		return Ref(name)
	}
	panic(fmt.Sprintf("schema: unsupported type %s", t))
}

// structSchema is the object schema of a struct's fields.
func (r *Reflector) structSchema(t reflect.Type) Schema {
	props := Schema{}
	var all []any
	r.addFields(t, props, &all)
	s := Schema{"type": "object", "properties": props, "additionalProperties": false}
	if len(all) > 0 {
		s["allOf"] = all
	}
	return s
}

// addFields adds the properties of t's fields (inline structs' included)
// to props, and constraints over several of them to all.
func (r *Reflector) addFields(t reflect.Type, props Schema, all *[]any) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, hasTag := f.Tag.Lookup("yaml")
		if f.Anonymous && strings.Contains(tag, ",inline") && f.Type.Kind() == reflect.Struct {
			r.packages[f.Type.PkgPath()] = true
			r.addFields(f.Type, props, all)
			continue
		}
		if tag == ",kinds" {
			r.addKinds(props, all)
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if !hasTag || name == "" {
			if r.Untagged == nil {
				continue
			}
			name = r.Untagged(f.Name)
		}
		props[name] = r.fieldSchema(t, f)
		for _, alias := range strings.Split(f.Tag.Get("alias"), ",") {
			if alias == "" {
				continue
			}
			as := r.fieldSchema(t, f)
			d, _ := as["description"].(string)
			as["description"] = strings.TrimSpace("Another spelling of " + name + ". " + d)
			props[alias] = as
			*all = append(*all, Schema{"not": Schema{"required": []any{name, alias}}})
		}
	}
}

// fieldSchema is a field's schema with its doc, default and patch.
func (r *Reflector) fieldSchema(owner reflect.Type, f reflect.StructField) Schema {
	s := r.Reflect(f.Type)
	key := owner.PkgPath() + "." + owner.Name() + "." + f.Name
	doc := f.Tag.Get("doc")
	if doc == "" {
		doc = r.doc(key)
	}
	if doc != "" {
		s["description"] = doc
	}
	if def, ok := f.Tag.Lookup("default"); ok {
		s["default"] = typedDefault(f.Type, def)
	}
	if p := r.Patch[key]; p != nil {
		p(s)
	}
	return s
}

// addKinds adds a property per registered step kind, and requires exactly
// one of them to be present.
func (r *Reflector) addKinds(props Schema, all *[]any) {
	if r.Kinds == nil {
		return
	}
	var one []any
	for _, name := range r.Kinds.KindNames() {
		spec, _ := r.Kinds.KindSpec(name)
		s := r.Reflect(reflect.TypeOf(spec.Config).Elem())
		if spec.Doc != "" {
			s["description"] = spec.Doc
		}
		props[name] = s
		// The decoder takes a null, and an empty string, as no key.
		present := Schema{"not": Schema{"type": "null"}}
		if reflect.TypeOf(spec.Config).Elem().Kind() == reflect.String {
			present["minLength"] = 1
		}
		one = append(one, Schema{"required": []any{name}, "properties": Schema{name: present}})
	}
	if len(one) > 0 {
		*all = append(*all, Schema{"oneOf": one})
	}
}

// typedDefault is a default tag's text as a value of the field's type.
func typedDefault(t reflect.Type, s string) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return s == "true"
	case reflect.Int, reflect.Int64, reflect.Int32:
		var n int64
		if _, err := fmt.Sscan(s, &n); err == nil {
			return n
		}
	case reflect.Float64:
		var f float64
		if _, err := fmt.Sscan(s, &f); err == nil {
			return f
		}
	}
	return s
}

// clone copies a schema's top level, so that adding a description to one
// use does not change the others.
func clone(s Schema) Schema {
	out := make(Schema, len(s))
	for k, v := range s {
		out[k] = v
	}
	return out
}
