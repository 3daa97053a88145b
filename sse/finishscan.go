package sse

import (
	"bytes"
	"errors"

	"github.com/agentgw/agentgw/internal/jsonscan"
)

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

// scanFinish reads what splitFinish needs of a chunk by scanning it once,
// as decodeFinish reads it with encoding/json: the members of the first
// choice and its delta are looked at where the scan meets them, every other
// value is validated and skipped. known is false when the chunk is not
// valid JSON or has something encoding/json reads in its own ways (see
// classifyKey; a member given twice, whose values it would merge; a choice
// or delta that is not an object): decodeFinish reads those.
func scanFinish(raw []byte) (f finishRead, known bool) {
	s := jsonscan.Scanner{Data: raw, AcceptInvalidUTF8: true}
	if s.OpenObject() != nil {
		return f, false
	}
	f.emptyDelta = true
	var choices bool
	for first := true; ; first = false {
		m, more, err := s.NextKey(first)
		if err != nil {
			return f, false
		}
		if !more {
			break
		}
		switch classifyKey(raw[m.KeyStart:m.KeyEnd], "choices", "usage") {
		case 0:
			if choices {
				return f, false
			}
			choices = true
			if !scanChoices(&s, &f) {
				return f, false
			}
			continue
		case 1:
			if f.usage != nil || s.Skip() != nil {
				return f, false
			}
			f.usage = raw[m.ValueStart:s.Pos]
			continue
		case keyOdd:
			return f, false
		}
		if s.Skip() != nil {
			return f, false
		}
	}
	if s.End() != nil {
		return f, false
	}
	f.valid = true
	return f, true
}

// scanChoices reads the value of "choices" at the scanner's position for
// scanFinish: its length, and the first choice's members. false is
// scanFinish's "not known".
func scanChoices(s *jsonscan.Scanner, f *finishRead) bool {
	switch s.Peek() {
	case 'n':
		return s.Skip() == nil
	case '[':
	default:
		return false
	}
	s.Pos++
	if s.Depth++; s.Depth > jsonscan.MaxDepth {
		return false
	}
	if s.Peek() == ']' {
		s.Pos++
		s.Depth--
		return true
	}
	for {
		s.WS()
		var err error
		if f.choices++; f.choices == 1 && s.Peek() == '{' {
			err = scanChoice(s, f)
		} else if f.choices == 1 && s.Peek() != 'n' {
			return false // a choice that is not an object
		} else {
			err = s.Skip()
		}
		if err != nil {
			return false
		}
		switch s.Peek() {
		case ',':
			s.Pos++
		case ']':
			s.Pos++
			s.Depth--
			return true
		default:
			return false
		}
	}
}

// errOdd stops a scan at something scanFinish leaves to decodeFinish.
var errOdd = errors.New("sse: left to encoding/json")

// scanChoice reads the choice object at the scanner's position into f for
// scanFinish.
func scanChoice(s *jsonscan.Scanner, f *finishRead) error {
	data := s.Data
	if err := s.OpenObject(); err != nil {
		return err
	}
	var delta bool
	for first := true; ; first = false {
		m, more, err := s.NextKey(first)
		if err != nil || !more {
			return err
		}
		switch classifyKey(data[m.KeyStart:m.KeyEnd], "delta", "finish_reason") {
		case 0:
			if delta {
				return errOdd
			}
			delta = true
			if err := scanDelta(s, f); err != nil {
				return err
			}
			continue
		case 1:
			if f.reason != nil || s.Skip() != nil {
				return errOdd
			}
			f.reason = data[m.ValueStart:s.Pos]
			continue
		case keyOdd:
			return errOdd
		}
		if err := s.Skip(); err != nil {
			return err
		}
	}
}

// scanDelta reads the delta at the scanner's position for scanChoice:
// whether it adds nothing to the answer, as emptyDelta tells of it decoded.
// A key spelled with escapes is left to decodeFinish.
func scanDelta(s *jsonscan.Scanner, f *finishRead) error {
	switch s.Peek() {
	case 'n':
		return s.Skip()
	case '{':
	default:
		return errOdd
	}
	data := s.Data
	_ = s.OpenObject()
	var content, refusal []byte
	for first := true; ; first = false {
		m, more, err := s.NextMember(first)
		if err != nil {
			return err
		}
		if !more {
			break
		}
		key, v := data[m.KeyStart+1:m.KeyEnd-1], data[m.ValueStart:m.ValueEnd]
		if bytes.IndexByte(key, '\\') >= 0 {
			return errOdd
		}
		// A key given twice is decoded into a map: the last value counts.
		switch string(key) {
		case "role":
		case "content":
			content = v
		case "refusal":
			refusal = v
		default:
			f.emptyDelta = false
		}
	}
	f.emptyDelta = f.emptyDelta && (content == nil || emptyMember("content", content)) &&
		(refusal == nil || emptyMember("refusal", refusal))
	return nil
}
