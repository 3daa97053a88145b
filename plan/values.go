package plan

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/agentgw/agentgw/internal/runes"
)

// walk follows keys from v. Maps are indexed by key, lists ([]any and other slices or arrays) by decimal
// index, structs by json tag name or exported field name, pointers are followed. It reports false when
// a key is missing or something in the way cannot be indexed.
func walk(v any, keys []string) (any, bool) {
	for _, k := range keys {
		var ok bool
		if v, ok = child(v, k); !ok {
			return nil, false
		}
	}
	return v, true
}

// child returns v[k] for the common JSON-like shapes, falling back to reflection for the others.
func child(v any, k string) (any, bool) {
	switch t := v.(type) {
	case map[string]any:
		c, ok := t[k]
		return c, ok
	case map[string]map[string]any:
		c, ok := t[k]
		if !ok || c == nil {
			return nil, false
		}
		return c, true
	case []any:
		i, ok := index(k, len(t))
		if !ok {
			return nil, false
		}
		return t[i], true
	case nil:
		return nil, false
	}
	return childReflect(reflect.ValueOf(v), k)
}

// childReflect indexes maps with string keys, slices, arrays and structs of any type.
func childReflect(rv reflect.Value, k string) (any, bool) {
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return nil, false
		}
		rv = rv.Elem()
	}
	switch rv.Kind() {
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return nil, false
		}
		c := rv.MapIndex(reflect.ValueOf(k).Convert(rv.Type().Key()))
		if !c.IsValid() {
			return nil, false
		}
		return c.Interface(), true
	case reflect.Slice, reflect.Array:
		i, ok := index(k, rv.Len())
		if !ok {
			return nil, false
		}
		return rv.Index(i).Interface(), true
	case reflect.Struct:
		return structField(rv, k)
	}
	return nil, false
}

// structField finds an exported field by its json tag name, else by its Go name.
func structField(rv reflect.Value, k string) (any, bool) {
	t := rv.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == k || (name == "" && f.Name == k) {
			return rv.Field(i).Interface(), true
		}
	}
	return nil, false
}

// index parses a decimal list index and checks it against n.
func index(k string, n int) (int, bool) {
	if !runes.IsDecimal(k) {
		return 0, false
	}
	i, err := strconv.Atoi(k)
	if err != nil || i >= n {
		return 0, false
	}
	return i, true
}

// present reports whether a looked-up value counts as present: found and not nil (nor a nil pointer).
func present(v any, found bool) bool {
	if !found || v == nil {
		return false
	}
	rv := reflect.ValueOf(v)
	return rv.Kind() != reflect.Pointer || !rv.IsNil()
}

// deepCopy copies the JSON-like containers map[string]any and []any recursively (and the step records'
// map[string]map[string]any); other values, including other map and slice types, are returned as they are.
func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return copyMap(t)
	case []any:
		if t == nil {
			return t
		}
		c := make([]any, len(t))
		for i, e := range t {
			c[i] = deepCopy(e)
		}
		return c
	case map[string]map[string]any:
		if t == nil {
			return t
		}
		c := make(map[string]any, len(t))
		for k, e := range t {
			c[k] = copyMap(e)
		}
		return c
	}
	return v
}

// copyMap deep-copies a map[string]any, keeping nil as nil.
func copyMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	c := make(map[string]any, len(m))
	for k, e := range m {
		c[k] = deepCopy(e)
	}
	return c
}
