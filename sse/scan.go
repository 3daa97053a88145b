package sse

import (
	"errors"
	"fmt"
)

// maxDepth is the deepest nesting the scanner accepts, the same limit as
// encoding/json's.
const maxDepth = 10000

// errSyntax is returned by the scanner for input that is not valid JSON.
var errSyntax = errors.New("invalid JSON")

// plainByte[c] is true for the bytes that stand for themselves inside a JSON
// string: all but control characters, the quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanner walks a JSON text without decoding it. It validates what it skips
// with the grammar of RFC 8259 (like encoding/json it accepts any byte
// sequence inside strings, invalid UTF-8 included) and never allocates.
type scanner struct {
	data []byte
	pos  int
	// newline records that insignificant whitespace contained \r or \n.
	newline bool
}

func (s *scanner) fail() error {
	return fmt.Errorf("%w at byte %d", errSyntax, s.pos)
}

func (s *scanner) skipSpace() {
	for s.pos < len(s.data) && s.data[s.pos] <= ' ' {
		switch s.data[s.pos] {
		case ' ', '\t':
		case '\n', '\r':
			s.newline = true
		default:
			return
		}
		s.pos++
	}
}

// consume skips whitespace and then the byte c if it comes next.
func (s *scanner) consume(c byte) bool {
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == c {
		s.pos++
		return true
	}
	return false
}

// value skips one JSON value at nesting depth.
func (s *scanner) value(depth int) bool {
	if s.pos >= len(s.data) {
		return false
	}
	switch c := s.data[s.pos]; {
	case c == '"':
		return s.str()
	case c == '{':
		return s.object(depth + 1)
	case c == '[':
		return s.array(depth + 1)
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	}
	return false
}

func (s *scanner) object(depth int) bool {
	if depth > maxDepth {
		return false
	}
	s.pos++ // '{'
	if s.consume('}') {
		return true
	}
	for {
		s.skipSpace()
		if !s.str() || !s.consume(':') {
			return false
		}
		s.skipSpace()
		if !s.value(depth) {
			return false
		}
		if s.consume('}') {
			return true
		}
		if !s.consume(',') {
			return false
		}
	}
}

func (s *scanner) array(depth int) bool {
	if depth > maxDepth {
		return false
	}
	s.pos++ // '['
	if s.consume(']') {
		return true
	}
	for {
		s.skipSpace()
		if !s.value(depth) {
			return false
		}
		if s.consume(']') {
			return true
		}
		if !s.consume(',') {
			return false
		}
	}
}

func (s *scanner) literal(lit string) bool {
	if len(s.data)-s.pos < len(lit) || string(s.data[s.pos:s.pos+len(lit)]) != lit {
		return false
	}
	s.pos += len(lit)
	return true
}

// str skips a string starting at the quote under pos.
func (s *scanner) str() bool {
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return false
	}
	data := s.data
	for i := s.pos + 1; i < len(data); i++ {
		if plainByte[data[i]] {
			continue
		}
		switch c := data[i]; {
		case c == '"':
			s.pos = i + 1
			return true
		case c == '\\':
			n := escapeLen(data[i:])
			if n == 0 {
				return false
			}
			i += n - 1
		default: // a control character
			return false
		}
	}
	return false
}

// escapeLen returns the length of the escape sequence at the start of b, or
// 0 when it is not a valid one.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if len(b) < 6 {
			return 0
		}
		for _, h := range b[2:6] {
			if !isHex(h) {
				return 0
			}
		}
		return 6
	}
	return 0
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func (s *scanner) digits() int {
	n := 0
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		s.pos++
		n++
	}
	return n
}

// number skips -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	if s.data[s.pos] == '-' {
		s.pos++
	}
	if s.pos < len(s.data) && s.data[s.pos] == '0' {
		s.pos++
	} else if s.digits() == 0 {
		return false
	}
	if s.pos < len(s.data) && s.data[s.pos] == '.' {
		s.pos++
		if s.digits() == 0 {
			return false
		}
	}
	if s.pos < len(s.data) && (s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.data) && (s.data[s.pos] == '+' || s.data[s.pos] == '-') {
			s.pos++
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}
