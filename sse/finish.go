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

// splitFinish looks at a chunk for an upstream's finish reason. ok is false
// for a chunk without one (most chunks, told by their last bytes or one
// search), or one this does not take apart (several choices, not JSON):
// such a chunk is relayed as it is. Otherwise reason is the finish reason
// and rest is the chunk to relay in its place: nil when it carried nothing
// else, else the chunk with its finish_reason null.
//
// The chunk is read as encoding/json would read it into
// {Choices []{Delta map[string]json.RawMessage; FinishReason
// json.RawMessage}; Usage json.RawMessage} (FuzzSplitFinish holds it to
// that), but by scanning its members (scanFinish): every stream ends with
// such a chunk, and decoding it cost a dozen allocations and more
// instructions than the rest of its relay. A chunk that encoding/json reads
// in its own ways (a key in another case, spelled with escapes or with
// letters that fold to ASCII, a member given twice, a value of the wrong
// type) is decoded by encoding/json as before.
func splitFinish(raw []byte) (reason string, rest []byte, ok bool) {
	if !HasFinishReason(raw) {
		return "", nil, false
	}
	f, known := scanFinish(raw)
	if !known {
		f = decodeFinish(raw)
	}
	if !f.valid || f.choices != 1 {
		return "", nil, false
	}
	r, err := strconv.Unquote(string(f.reason))
	if err != nil || r == "" {
		return "", nil, false
	}
	if f.emptyDelta && (len(f.usage) == 0 || string(f.usage) == "null") {
		return r, nil, true
	}
	// The key occurs once: the one choice's (a key cannot occur inside a
	// JSON string, whose quotes are escaped, nor can a nested object's
	// finish_reason be the choice's: the scan read the choice's).
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

// finishRead is what splitFinish needs of a chunk.
type finishRead struct {
	// valid is false when encoding/json would fail to decode the chunk.
	valid bool
	// choices is the length of "choices"; reason (its raw JSON value) and
	// emptyDelta are the first choice's.
	choices    int
	reason     []byte
	emptyDelta bool
	// usage is the raw JSON value of "usage", nil when there is none.
	usage []byte
}

// finishChunk is what decodeFinish decodes of a chunk.
type finishChunk struct {
	Choices []struct {
		Delta        map[string]json.RawMessage `json:"delta"`
		FinishReason json.RawMessage            `json:"finish_reason"`
	} `json:"choices"`
	Usage json.RawMessage `json:"usage"`
}

// decodeFinish reads a chunk with encoding/json, for the chunks scanFinish
// leaves to it.
func decodeFinish(raw []byte) finishRead {
	var c finishChunk
	if json.Unmarshal(raw, &c) != nil {
		return finishRead{}
	}
	f := finishRead{valid: true, choices: len(c.Choices), usage: c.Usage}
	if len(c.Choices) > 0 {
		ch := c.Choices[0]
		f.reason, f.emptyDelta = ch.FinishReason, emptyDelta(ch.Delta)
	}
	return f
}

// emptyDelta reports whether a delta adds nothing to the answer: no key
// but the role, or content and refusal empty or null.
func emptyDelta(d map[string]json.RawMessage) bool {
	for k, v := range d {
		if !emptyMember(k, v) {
			return false
		}
	}
	return true
}

// emptyMember reports whether a member of a delta adds nothing to the
// answer.
func emptyMember(key string, value []byte) bool {
	switch key {
	case "role":
		return true
	case "content", "refusal":
		s := string(value)
		return s == "null" || s == `""`
	}
	return false
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
