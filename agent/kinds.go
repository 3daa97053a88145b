package agent

import (
	"reflect"
	"strings"
	"time"
)

// KindSpec declares a step kind as definitions see it: the key a step uses
// for it, what it does, and its configuration. The decoder reads a step's
// kind key with it, and lint and a JSON Schema read its fields from the same
// spec (Fields).
type KindSpec struct {
	// Name is the step's key for the kind: reply, llm, git, tool, ...
	Name string
	// Doc says what a step of the kind does.
	Doc string
	// Config points to the zero value of the kind's configuration: a struct
	// whose yaml tags name its fields (alias tags add other spellings) and
	// whose doc and default tags document them, or a *Text, *Value or
	// *string for a kind configured by one value. An empty string counts as
	// no configuration: the key is taken as absent.
	Config any
}

// Field is one configuration field of a step kind.
type Field struct {
	// Name is the field's YAML key; Aliases are other accepted spellings.
	Name    string
	Aliases []string
	// Type is string, integer, number, boolean, duration, template, value,
	// list or mapping.
	Type string
	// Doc says what the field does; Default is what the kind uses when the
	// field is absent ("" when nothing).
	Doc     string
	Default string
}

// Fields lists the kind's configuration fields from its Config struct's
// tags; a kind configured by one value has none.
func (s KindSpec) Fields() []Field {
	t := reflect.TypeOf(s.Config)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct || t.Elem() == textType || t.Elem() == valueType {
		return nil
	}
	t = t.Elem()
	var out []Field
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		fd := Field{Name: name, Type: typeName(f.Type), Doc: f.Tag.Get("doc"), Default: f.Tag.Get("default")}
		for _, a := range strings.Split(f.Tag.Get("alias"), ",") {
			if a != "" {
				fd.Aliases = append(fd.Aliases, a)
			}
		}
		out = append(out, fd)
	}
	return out
}

// typeName is a field type as a schema names it.
func typeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == textType:
		return "template"
	case t == valueType:
		return "value"
	case t == reflect.TypeFor[time.Duration]():
		return "duration"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int32, reflect.Int64:
		return "integer"
	case reflect.Float64:
		return "number"
	case reflect.Slice:
		return "list"
	default:
		return "mapping"
	}
}

// KindSpecs are the step kinds a decoder knows.
type KindSpecs interface {
	// KindSpec returns the spec of the kind named name.
	KindSpec(name string) (KindSpec, bool)
	// KindNames lists the kinds in the order they were registered.
	KindNames() []string
}

// StepKind is one kind key of a step with its decoded configuration.
type StepKind struct {
	Name string
	// Config is a pointer of the type KindSpec.Config points to, filled
	// from the step's YAML.
	Config any
}
