package sse

import "github.com/agentgw/agentgw/internal/jsonscan"

// keyOther and keyOdd are what classifyKey says of a key that is neither
// of the names it looks for.
const (
	// keyOther: a key encoding/json would not match with either name.
	keyOther = -1
	// keyOdd: a key it might match in its own way: spelled with escapes or
	// non-ASCII letters (which may fold to ASCII), or in another case.
	keyOdd = -2
)

// classifyKey tells which of the names a, b (lower-case ASCII) the raw key
// (quotes included) is exactly: 0 or 1; else keyOther, or keyOdd when
// encoding/json might still match it with one of them.
func classifyKey(key []byte, a, b string) int {
	inner := key[1 : len(key)-1]
	for _, c := range inner {
		if c == '\\' || c >= 0x80 {
			return keyOdd
		}
	}
	switch {
	case string(inner) == a:
		return 0
	case string(inner) == b:
		return 1
	case foldsTo(inner, a) || foldsTo(inner, b):
		return keyOdd
	}
	return keyOther
}

// foldsTo reports whether the ASCII key equals name (lower-case ASCII) but
// for the case of its letters.
func foldsTo(key []byte, name string) bool {
	if len(key) != len(name) {
		return false
	}
	for i, c := range key {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != name[i] {
			return false
		}
	}
	return true
}

// scanFinish reads what splitFinish needs of a chunk by scanning its
// members, as decodeFinish reads it with encoding/json. known is false when
// the chunk is not valid JSON or has something encoding/json reads in its
// own ways (see classifyKey; a member given twice, whose values it would
// merge; a choice or delta that is not an object): decodeFinish reads
// those.
func scanFinish(raw []byte) (f finishRead, known bool) {
	s := jsonscan.Scanner{Data: raw, AcceptInvalidUTF8: true}
	if s.OpenObject() != nil {
		return f, false
	}
	var choices []byte
	for first := true; ; first = false {
		m, more, err := s.NextMember(first)
		if err != nil {
			return f, false
		}
		if !more {
			break
		}
		v := raw[m.ValueStart:m.ValueEnd]
		switch classifyKey(raw[m.KeyStart:m.KeyEnd], "choices", "usage") {
		case 0:
			if choices != nil {
				return f, false
			}
			choices = v
		case 1:
			if f.usage != nil {
				return f, false
			}
			f.usage = v
		case keyOdd:
			return f, false
		}
	}
	if s.End() != nil {
		return f, false
	}
	f.valid, f.emptyDelta = true, true
	if choices == nil || string(choices) == "null" {
		return f, true
	}
	if choices[0] != '[' {
		return f, false
	}
	// The chunk is valid: the scans below cannot fail.
	s = jsonscan.Scanner{Data: choices, Pos: 1, AcceptInvalidUTF8: true}
	var choice []byte
	if s.Peek() != ']' {
		for {
			start := s.Pos
			if s.Skip() != nil {
				return f, false
			}
			if f.choices++; f.choices == 1 {
				choice = choices[start:s.Pos]
			}
			if s.Peek() != ',' {
				break
			}
			s.Pos++
			s.WS()
		}
	}
	if f.choices != 1 || string(choice) == "null" {
		return f, true
	}
	return scanChoice(f, choice)
}

// scanChoice reads the one choice of a chunk into f for scanFinish.
func scanChoice(f finishRead, choice []byte) (finishRead, bool) {
	if choice[0] != '{' {
		return f, false
	}
	s := jsonscan.Scanner{Data: choice, AcceptInvalidUTF8: true}
	_ = s.OpenObject()
	var delta []byte
	for first := true; ; first = false {
		m, more, err := s.NextMember(first)
		if err != nil {
			return f, false
		}
		if !more {
			break
		}
		v := choice[m.ValueStart:m.ValueEnd]
		switch classifyKey(choice[m.KeyStart:m.KeyEnd], "delta", "finish_reason") {
		case 0:
			if delta != nil {
				return f, false
			}
			delta = v
		case 1:
			if f.reason != nil {
				return f, false
			}
			f.reason = v
		case keyOdd:
			return f, false
		}
	}
	if delta == nil || string(delta) == "null" {
		return f, true
	}
	if delta[0] != '{' {
		return f, false
	}
	var ok bool
	f.emptyDelta, ok = scanDelta(delta)
	return f, ok
}

// scanDelta reports whether a delta object adds nothing to the answer, as
// emptyDelta does for it decoded; ok is false for a key spelled with
// escapes, which decodeFinish reads.
func scanDelta(delta []byte) (empty, ok bool) {
	s := jsonscan.Scanner{Data: delta, AcceptInvalidUTF8: true}
	_ = s.OpenObject()
	var content, refusal []byte
	empty = true
	for first := true; ; first = false {
		m, more, err := s.NextMember(first)
		if err != nil {
			return false, false
		}
		if !more {
			break
		}
		key, v := delta[m.KeyStart+1:m.KeyEnd-1], delta[m.ValueStart:m.ValueEnd]
		for _, c := range key {
			if c == '\\' {
				return false, false
			}
		}
		// A key given twice is decoded into a map: the last value counts.
		switch string(key) {
		case "role":
		case "content":
			content = v
		case "refusal":
			refusal = v
		default:
			empty = false
		}
	}
	return empty && (content == nil || emptyMember("content", content)) &&
		(refusal == nil || emptyMember("refusal", refusal)), true
}
