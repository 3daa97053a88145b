package actions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// JSON value kinds as kindOf names them in messages.
const (
	jsonObject  = "object"
	jsonArray   = "array"
	jsonString  = "string"
	jsonNumber  = "number"
	jsonBoolean = "boolean"
	jsonNull    = "null"
	jsonMissing = "missing"
)

// kindOf names the kind of the JSON value raw; raw must be valid JSON or
// empty (missing).
func kindOf(raw []byte) string {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return jsonMissing
	}
	switch raw[0] {
	case '{':
		return jsonObject
	case '[':
		return jsonArray
	case '"':
		return jsonString
	case 't', 'f':
		return jsonBoolean
	case 'n':
		return jsonNull
	}
	return jsonNumber
}

// absent reports whether raw is a missing value or null.
func absent(raw []byte) bool {
	k := kindOf(raw)
	return k == jsonMissing || k == jsonNull
}

// members calls fn with each member of the JSON object raw, in order, and
// returns the keys that occur more than once (fn sees only their first
// occurrence). raw must be a valid JSON object.
func members(raw []byte, fn func(key string, val []byte)) (dups []string, err error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("reading object: %w", err)
	}
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return dups, fmt.Errorf("reading object key: %w", err)
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return dups, fmt.Errorf("reading member %q: %w", key, err)
		}
		if seen[key] {
			dups = append(dups, key)
			continue
		}
		seen[key] = true
		fn(key, val)
	}
	return dups, nil
}

// elements calls fn with each element of the JSON array raw, in order. raw
// must be a valid JSON array.
func elements(raw []byte, fn func(i int, val []byte)) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("reading array: %w", err)
	}
	for i := 0; dec.More(); i++ {
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return fmt.Errorf("reading element %d: %w", i, err)
		}
		fn(i, val)
	}
	return nil
}

// decodeAny decodes raw keeping numbers as json.Number, so that they are
// written back exactly as they were read.
func decodeAny(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

// field is the path of member key of the value at path.
func field(path, key string) string {
	if !plainKey(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// index is the path of element i of the array at path.
func index(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

func plainKey(key string) bool {
	if key == "" {
		return false
	}
	for _, r := range key {
		ok := r == '_' || r == '$' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !ok {
			return false
		}
	}
	return true
}

// walker decodes JSON strictly, collecting every problem with its path.
type walker struct {
	errs []error
}

func (w *walker) problem(path, format string, args ...any) {
	w.errs = append(w.errs, &ValidationError{Path: path, Message: fmt.Sprintf(format, args...)})
}

func (w *walker) err() error {
	return errors.Join(w.errs...)
}

// object calls fn with each member of the object at path. It reports a
// value that is not an object (null counts as absent and is skipped) and
// duplicate keys; it returns whether raw was an object.
func (w *walker) object(path string, raw []byte, fn func(key string, val []byte)) bool {
	if k := kindOf(raw); k != jsonObject {
		if k != jsonNull && k != jsonMissing {
			w.problem(path, "expected an object, got %s", k)
		}
		return false
	}
	dups, err := members(raw, fn)
	for _, d := range dups {
		w.problem(field(path, d), "duplicate field")
	}
	if err != nil {
		w.problem(path, "%v", err)
	}
	return true
}

// array calls fn with each element of the array at path; null is absent.
func (w *walker) array(path string, raw []byte, fn func(i int, val []byte)) {
	if k := kindOf(raw); k != jsonArray {
		if k != jsonNull && k != jsonMissing {
			w.problem(path, "expected an array, got %s", k)
		}
		return
	}
	if err := elements(raw, fn); err != nil {
		w.problem(path, "%v", err)
	}
}

// str decodes the string at path into dst; null leaves dst unchanged.
func (w *walker) str(path string, raw []byte, dst *string) {
	switch k := kindOf(raw); k {
	case jsonNull, jsonMissing:
	case jsonString:
		if err := json.Unmarshal(raw, dst); err != nil {
			w.problem(path, "%v", err)
		}
	default:
		w.problem(path, "expected a string, got %s", k)
	}
}

// unknown reports the unknown member key of the object at path.
func (w *walker) unknown(path, key string, known []string) {
	w.problem(field(path, key), "unknown field%s", didYouMean(key, known))
}
