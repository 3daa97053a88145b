package sse

import (
	"bytes"
	"fmt"

	"github.com/agentgw/agentgw/internal/jsonscan"
)

// idKey is the key written when a chunk has no top-level "id" of its own.
const idKey = `"id":`

// fastPrefix is how OpenAI and most compatible platforms start a chunk.
const fastPrefix = `{"id":"`

// escapedIDLetter starts \u0069 and \u0064, the escapes of "i" and
// "d": a key written with escapes can only decode to "id" through them.
const escapedIDLetter = `\u006`

// appendChunk appends the chunk raw with its top-level id replaced by
// idJSON, on the fast path when raw has the common layout (see
// Writer.Chunk), else as appendRewritten does.
func appendChunk(dst, raw, idJSON []byte) ([]byte, error) {
	if rest, ok := fastRest(raw); ok {
		dst = append(dst, fastPrefix[:len(idKey)+1]...)
		dst = append(dst, idJSON...)
		return append(dst, rest...), nil
	}
	return appendRewritten(dst, raw, idJSON)
}

// fastRest returns what follows the id value of a chunk that starts with
// `{"id":"<id without escapes>",` and ends with '}' (or is just
// `{"id":"<id>"}`), and has no line break and nothing after the id that
// could spell the key "id" (no `"id"`, no \u006 escape). It checks this
// with a few vectorized searches instead of scanning the chunk.
func fastRest(raw []byte) ([]byte, bool) {
	if !bytes.HasPrefix(raw, []byte(fastPrefix)) || raw[len(raw)-1] != '}' {
		return nil, false
	}
	rest := raw[len(fastPrefix):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return nil, false
	}
	rest = rest[end+1:]
	if len(rest) == 0 || (rest[0] != ',' && string(rest) != "}") ||
		bytes.IndexByte(rest, '\n') >= 0 || bytes.IndexByte(rest, '\r') >= 0 ||
		hasQuotedID(rest) || bytes.Contains(rest, []byte(escapedIDLetter)) {
		return nil, false
	}
	return rest, true
}

// hasQuotedID reports whether b contains `"id"`. It looks for the 'd',
// which is much rarer in chunks than the quote bytes.Index would look for.
func hasQuotedID(b []byte) bool {
	for i := 0; ; i++ {
		j := bytes.IndexByte(b[i:], 'd')
		if j < 0 {
			return false
		}
		i += j
		if i >= 2 && i+1 < len(b) && b[i-2] == '"' && b[i-1] == 'i' && b[i+1] == '"' {
			return true
		}
	}
}

// RewriteID appends the JSON object raw to dst with the value of every
// top-level "id" member replaced by id (as a JSON string); a raw without one
// gets `"id":<id>` inserted as its first member. Everything else is copied
// byte for byte, except that line breaks in insignificant whitespace become
// spaces so that the result fits on one SSE data line. Nested "id" keys are
// not touched. When raw is not a valid JSON object the result is dst
// unchanged and an error wrapping ErrMalformedChunk.
//
// It does not allocate when dst has room and id is a plain ASCII id of up
// to 62 bytes (Writer.Chunk never allocates: it encodes its id once).
func RewriteID(dst, raw []byte, id string) ([]byte, error) {
	var tmp [64]byte
	return appendRewritten(dst, raw, AppendString(tmp[:0], id))
}

// appendRewritten is RewriteID with the id already encoded as a JSON string.
func appendRewritten(dst, raw, idJSON []byte) ([]byte, error) {
	start := len(dst)
	s := jsonscan.Scanner{Data: raw, AcceptInvalidUTF8: true}
	if err := s.OpenObject(); err != nil {
		return dst, fmt.Errorf("%w: %w", ErrMalformedChunk, err)
	}
	open := s.Pos
	copied, found, members := 0, false, false
	for first := true; ; first = false {
		m, ok, err := s.NextMember(first)
		if err != nil {
			return dst[:start], fmt.Errorf("%w: %w", ErrMalformedChunk, err)
		}
		if !ok {
			break
		}
		members = true
		if keyIs(raw[m.KeyStart:m.KeyEnd], "id") {
			dst = append(dst, raw[copied:m.ValueStart]...)
			dst = append(dst, idJSON...)
			copied, found = m.ValueEnd, true
		}
	}
	if err := s.End(); err != nil {
		return dst[:start], fmt.Errorf("%w: %w", ErrMalformedChunk, err)
	}
	dst = append(dst, raw[copied:]...)
	if !found {
		dst = insertID(dst, start+open, idJSON, members)
	}
	if s.Newline {
		flattenLines(dst[start:])
	}
	return dst, nil
}

// insertID inserts `"id":<idJSON>` at dst[at], followed by a comma when the
// object has other members.
func insertID(dst []byte, at int, idJSON []byte, comma bool) []byte {
	n := len(idKey) + len(idJSON)
	if comma {
		n++
	}
	dst = append(dst, make([]byte, n)...)
	copy(dst[at+n:], dst[at:len(dst)-n])
	i := at + copy(dst[at:], idKey)
	i += copy(dst[i:], idJSON)
	if comma {
		dst[i] = ','
	}
	return dst
}

// flattenLines turns \r and \n into spaces. In valid JSON they can only be
// insignificant whitespace, which a space replaces without changing meaning.
func flattenLines(b []byte) {
	for i, c := range b {
		if c == '\n' || c == '\r' {
			b[i] = ' '
		}
	}
}

// Field returns the raw value of the first top-level member of the JSON
// object raw whose key is key, without decoding anything else. ok is false
// when there is no such member or raw is not a JSON object up to it (the
// part after the member is not validated). Nested keys never match.
func Field(raw []byte, key string) (value []byte, ok bool) {
	s := jsonscan.Scanner{Data: raw, AcceptInvalidUTF8: true}
	if s.OpenObject() != nil {
		return nil, false
	}
	for first := true; ; first = false {
		m, more, err := s.NextMember(first)
		if err != nil || !more {
			return nil, false
		}
		if keyIs(raw[m.KeyStart:m.KeyEnd], key) {
			return raw[m.ValueStart:m.ValueEnd], true
		}
	}
}

// LeadingValue returns the JSON value that starts raw after any whitespace,
// such as the value after a key found by searching a chunk's text. ok is
// false when raw does not start with a valid JSON value; what follows it is
// not looked at.
func LeadingValue(raw []byte) (value []byte, ok bool) {
	s := jsonscan.Scanner{Data: raw, AcceptInvalidUTF8: true}
	s.WS()
	start := s.Pos
	if s.Skip() != nil {
		return nil, false
	}
	return raw[start:s.Pos], true
}
