package sse

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// A relayed upstream stream has a finish chunk of its own (the choice's
// finish_reason set: "stop", "length", "tool_calls", ...), and the Writer
// ends every stream with its own final chunk. So that a client sees one
// last chunk with the finish reason (docs/protocol.md §3), the Writer
// keeps the upstream's reason for its final chunk and does not relay the
// upstream's: a finish chunk with nothing else in it (its delta empty, no
// usage) is dropped, and one that also carries content is relayed with its
// finish_reason null.

var (
	finishReasonKey = []byte(`"finish_reason":`)
	finishNullTail  = []byte(`"finish_reason":null}]}`)
)

// finishChunk is what splitFinish reads of a chunk that has a finish
// reason.
type finishChunk struct {
	Choices []struct {
		Delta        map[string]json.RawMessage `json:"delta"`
		FinishReason json.RawMessage            `json:"finish_reason"`
	} `json:"choices"`
	Usage json.RawMessage `json:"usage"`
}

// splitFinish looks at a chunk for an upstream's finish reason. ok is false
// for a chunk without one (most chunks, told by their last bytes or one
// search), or one this does not take apart (several choices, not JSON):
// such a chunk is relayed as it is. Otherwise reason is the finish reason
// and rest is the chunk to relay in its place: nil when it carried nothing
// else, else the chunk with its finish_reason null.
func splitFinish(raw []byte) (reason string, rest []byte, ok bool) {
	if !HasFinishReason(raw) {
		return "", nil, false
	}
	var c finishChunk
	if json.Unmarshal(raw, &c) != nil || len(c.Choices) != 1 {
		return "", nil, false
	}
	ch := c.Choices[0]
	r, err := strconv.Unquote(string(ch.FinishReason))
	if err != nil || r == "" {
		return "", nil, false
	}
	if emptyDelta(ch.Delta) && (len(c.Usage) == 0 || string(c.Usage) == "null") {
		return r, nil, true
	}
	// The key occurs once: the one choice's (a key cannot occur inside a
	// JSON string, whose quotes are escaped, nor can a nested object's
	// finish_reason be the choice's: Unmarshal read the choice's).
	i := bytes.Index(raw, finishReasonKey) + len(finishReasonKey)
	v, vok := LeadingValue(raw[i:])
	if !vok || bytes.Count(raw, finishReasonKey) != 1 {
		return "", nil, false
	}
	start := i + bytes.Index(raw[i:], v)
	out := make([]byte, 0, len(raw))
	out = append(append(append(out, raw[:start]...), "null"...), raw[start+len(v):]...)
	return r, out, true
}

// emptyDelta reports whether a delta adds nothing to the answer: no key
// but the role, or content and refusal empty or null.
func emptyDelta(d map[string]json.RawMessage) bool {
	for k, v := range d {
		switch k {
		case "role":
		case "content", "refusal":
			if s := string(v); s != "null" && s != `""` {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// HasFinishReason reports whether a chunk carries a finish_reason other
// than null or "". Most chunks end with a null one and are told by their
// last bytes; the others by a search, without decoding: the key cannot
// occur inside a string of valid JSON (its quotes would be escaped).
func HasFinishReason(data []byte) bool {
	if bytes.HasSuffix(data, finishNullTail) {
		return false
	}
	for {
		i := bytes.Index(data, finishReasonKey)
		if i < 0 {
			return false
		}
		data = bytes.TrimLeft(data[i+len(finishReasonKey):], " \t\r\n")
		if len(data) > 1 && data[0] == '"' && data[1] != '"' {
			return true
		}
	}
}
