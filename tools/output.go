package tools

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/internal/runes"
)

// jsonOrText decodes b as one JSON value; output that is not JSON is the
// trimmed text. Numbers decode as float64.
func jsonOrText(b []byte) any {
	trimmed := bytes.TrimSpace(b)
	if json.Valid(trimmed) {
		var v any
		if err := json.Unmarshal(trimmed, &v); err == nil {
			return v
		}
	}
	return string(trimmed)
}

// jsonResult is the result of a JSON-protocol tool (stdio, wasm, http): its
// output, or OUTPUT_TOO_LARGE when the output was cut, since a cut value
// cannot be used.
func jsonResult(b []byte, cut bool, max int) (any, error) {
	if cut {
		return nil, errorf(toolspec.CodeOutputTooLarge, "output exceeded %d bytes (maxOutputBytes)", max)
	}
	return jsonOrText(b), nil
}

// cutText returns b as text; when cut, it ends at a whole rune and a marker
// says where the output was cut.
func cutText(b []byte, cut bool, max int) string {
	if !cut {
		return string(bytes.TrimSpace(b))
	}
	return fmt.Sprintf("%s\n[output cut at %d bytes]", runes.TrimPartial(b), max)
}
