package plan

import (
	"reflect"
	"strconv"
	"strings"
)

// fetchFn implements _fetch(obj, key): obj's member key, or nil.
func fetchFn(params ...any) (any, error) {
	var k string
	switch key := params[1].(type) {
	case string:
		k = key
	case int:
		if key < 0 {
			return nil, nil
		}
		k = strconv.Itoa(key)
	default:
		return nil, nil
	}
	v, _ := child(params[0], k)
	return v, nil
}

// containsFn implements contains(haystack, needle): a substring of a string, an element of a list, a key
// of a map with string keys. Anything else does not contain anything.
func containsFn(params ...any) (any, error) {
	h, n := params[0], params[1]
	if s, ok := h.(string); ok {
		ns, ok := n.(string)
		return ok && strings.Contains(s, ns), nil
	}
	rv := reflect.ValueOf(h)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		for i := 0; i < rv.Len(); i++ {
			if looseEqual(rv.Index(i).Interface(), n) {
				return true, nil
			}
		}
	case reflect.Map:
		ks, ok := n.(string)
		if !ok || rv.Type().Key().Kind() != reflect.String {
			return false, nil
		}
		return rv.MapIndex(reflect.ValueOf(ks).Convert(rv.Type().Key())).IsValid(), nil
	}
	return false, nil
}

// isEmptyFn implements isEmpty(x): nil, a blank string, an empty list or map are empty.
func isEmptyFn(params ...any) (any, error) {
	x := params[0]
	if x == nil {
		return true, nil
	}
	if s, ok := x.(string); ok {
		return strings.TrimSpace(s) == "", nil
	}
	rv := reflect.ValueOf(x)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return rv.Len() == 0, nil
	case reflect.Pointer:
		return rv.IsNil(), nil
	}
	return false, nil
}

// looseEqual compares two values, numbers by value whatever their Go types (1 == 1.0).
func looseEqual(a, b any) bool {
	if fa, ok := number(a); ok {
		fb, ok := number(b)
		return ok && fa == fb
	}
	ra, rb := reflect.ValueOf(a), reflect.ValueOf(b)
	if !ra.IsValid() || !rb.IsValid() {
		return !ra.IsValid() && !rb.IsValid()
	}
	if ra.Comparable() && rb.Comparable() {
		return a == b
	}
	return reflect.DeepEqual(a, b)
}

// number converts Go numeric kinds to float64.
func number(v any) (float64, bool) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(rv.Uint()), true
	case reflect.Float32, reflect.Float64:
		return rv.Float(), true
	}
	return 0, false
}
