package guard

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/agentgw/agentgw/guard/exclude"
)

// pathKeys are the members that name a file in a tool call's arguments
// and in a tool result: read_file's and search_text's path, the
// filePath of IDE tools, a knowledge reference's fileName...
var pathKeys = []string{"path", "filePath", "filepath", "file", "fileName", "filename", "uri"}

// withhold withholds the excluded files of a decoded raw message: it
// remembers the arguments of an assistant's tool calls, and replaces the
// content of a tool message by the note of the file its call names, or
// each part of its result that names an excluded file by that file's
// note. It reports whether it changed v.
func (c *call) withhold(v map[string]any) bool {
	if c.pol.Empty() {
		return false
	}
	if calls, ok := v["tool_calls"].([]any); ok {
		c.remember(calls)
		return false
	}
	id, _ := v["tool_call_id"].(string)
	content, ok := v["content"].(string)
	if v["role"] != "tool" || !ok {
		return false
	}
	if name := c.excludedArg(c.args[id]); name != "" {
		v["content"] = exclude.Note(name)
		c.withheld = append(c.withheld, name)
		return true
	}
	var result any
	dec := json.NewDecoder(bytes.NewReader([]byte(content)))
	dec.UseNumber()
	if dec.Decode(&result) != nil {
		return false
	}
	result, changed := c.withholdValue(result)
	if !changed {
		return false
	}
	data, err := marshal(result)
	if err != nil {
		return false
	}
	v["content"] = string(data)
	return true
}

// remember keeps the arguments of an assistant's tool calls by call id.
func (c *call) remember(calls []any) {
	for _, tc := range calls {
		m, _ := tc.(map[string]any)
		id, _ := m["id"].(string)
		fn, _ := m["function"].(map[string]any)
		args, _ := fn["arguments"].(string)
		if id == "" || args == "" {
			continue
		}
		if c.args == nil {
			c.args = map[string]string{}
		}
		c.args[id] = args
	}
}

// excludedArg returns the excluded file a call's arguments name, "" when
// none.
func (c *call) excludedArg(args string) string {
	if args == "" {
		return ""
	}
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return ""
	}
	return c.excludedName(m)
}

// excludedName returns the excluded file an object names in one of
// pathKeys, "" when none.
func (c *call) excludedName(m map[string]any) string {
	for _, k := range pathKeys {
		if name, ok := m[k].(string); ok && c.pol.Match(name) {
			return name
		}
	}
	return ""
}

// withholdValue replaces each object of a tool result that names an
// excluded file by the file's note.
func (c *call) withholdValue(v any) (any, bool) {
	switch x := v.(type) {
	case []any:
		changed := false
		for i, e := range x {
			var ch bool
			x[i], ch = c.withholdValue(e)
			changed = changed || ch
		}
		return x, changed
	case map[string]any:
		if name := c.excludedName(x); name != "" {
			c.withheld = append(c.withheld, name)
			return exclude.Note(name), true
		}
		changed := false
		for k, e := range x {
			var ch bool
			x[k], ch = c.withholdValue(e)
			changed = changed || ch
		}
		return x, changed
	case string:
		// A tool whose output is text (a native tool's stdout) may print
		// JSON: its result is that text.
		t := strings.TrimSpace(x)
		if t == "" || (t[0] != '{' && t[0] != '[') {
			return v, false
		}
		var inner any
		dec := json.NewDecoder(strings.NewReader(t))
		dec.UseNumber()
		if dec.Decode(&inner) != nil {
			return v, false
		}
		if inner, changed := c.withholdValue(inner); changed {
			if s, ok := inner.(string); ok {
				return s, true
			}
			data, err := marshal(inner)
			if err != nil {
				return v, false
			}
			return string(data), true
		}
	}
	return v, false
}

// marshal encodes v as JSON without escaping <, > and &.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
