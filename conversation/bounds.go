package conversation

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// recordLevels is how far below the top of a stored record a state or
// metadata object sits, at most: record, changes, a change, its state.
const recordLevels = 3

// tooDeep reports whether v, a decoded JSON value, nests deeper than
// limit (an object or array of scalars is 1 deep). It stops descending at
// limit, so what it costs is bounded by v's size, and its recursion by
// limit.
func tooDeep(v any, limit int) bool {
	switch t := v.(type) {
	case map[string]any:
		if limit < 1 {
			return true
		}
		for _, e := range t {
			if tooDeep(e, limit-1) {
				return true
			}
		}
	case []any:
		if limit < 1 {
			return true
		}
		for _, e := range t {
			if tooDeep(e, limit-1) {
				return true
			}
		}
	}
	return false
}

// jsonDepth is the deepest nesting of the valid JSON data, by one pass
// over its bytes (brackets outside strings).
func jsonDepth(data []byte) int {
	depth, deepest := 0, 0
	in := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case in:
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// checkObject refuses an object the caller sets (metadata, a state
// patch) nested deeper than Config.MaxDepth.
func (r *StoreRepo) checkObject(what string, v map[string]any) error {
	if v != nil && tooDeep(v, r.cfg.MaxDepth) {
		return fmt.Errorf("%w: the %s is nested deeper than %d levels (contexts.maxDepth)", ErrTooDeep, what, r.cfg.MaxDepth)
	}
	return nil
}

// checkSize refuses a context whose state and metadata together are over
// Config.MaxBytes of JSON.
func (r *StoreRepo) checkSize(c *Context) error {
	state, err := json.Marshal(c.State)
	if err != nil {
		return fmt.Errorf("%w: the state does not encode: %w", ErrBadOperation, err)
	}
	meta, err := json.Marshal(c.Metadata)
	if err != nil {
		return fmt.Errorf("%w: the metadata does not encode: %w", ErrBadOperation, err)
	}
	if n := len(state) + len(meta); n > r.cfg.MaxBytes {
		return fmt.Errorf("%w: the state and metadata are %d bytes, over the limit of %d (contexts.maxBytes)", ErrTooLarge, n, r.cfg.MaxBytes)
	}
	return nil
}

// head is what is read of a record that does not decode: enough to tell
// who owns it and to delete it.
type head struct {
	deleted bool
	owner   string
	version int64
}

// readHead reads a record's tombstone flag, owner and version without
// decoding the rest: token by token, stopping at the first container it
// does not need (a record is marshalled with the context's id, times,
// version and owner before its messages, state and metadata). ok is false
// when no owner was found.
func readHead(raw []byte) (h head, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return h, false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return h, false
		}
		switch k {
		case "deleted":
			err = dec.Decode(&h.deleted)
		case "owner":
			err = dec.Decode(&h.owner)
		case "context":
			if h.owner, h.version, ok = readContextHead(dec); !ok {
				return h, false
			}
			return h, true
		default:
			return h, h.owner != ""
		}
		if err != nil {
			return h, false
		}
	}
	return h, h.owner != ""
}

// readContextHead reads the owner and version of the context object at
// dec's position, stopping at its first container member.
func readContextHead(dec *json.Decoder) (owner string, version int64, ok bool) {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", 0, false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return "", 0, false
		}
		switch k {
		case "owner":
			err = dec.Decode(&owner)
		case "version":
			err = dec.Decode(&version)
		case "contextId", "createdAt", "updatedAt":
			_, err = dec.Token()
		default:
			return owner, version, owner != ""
		}
		if err != nil {
			return "", 0, false
		}
	}
	return owner, version, owner != ""
}
