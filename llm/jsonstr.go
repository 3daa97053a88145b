package llm

import (
	"unicode/utf16"
	"unicode/utf8"
)

// appendUnquoted appends the text of the JSON string literal q (quotes
// included, as sse.Field returns it) to dst. ok is false, and dst returned
// unchanged, when q is not a valid JSON string. Like encoding/json it turns
// invalid UTF-8 and lone surrogates into U+FFFD. It does not allocate when
// dst has room.
func appendUnquoted(dst, q []byte) (_ []byte, ok bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return dst, false
	}
	orig := len(dst)
	s := q[1 : len(q)-1]
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			var n int
			if dst, n = appendEscape(dst, s[i:]); n == 0 {
				return dst[:orig], false
			}
			i += n
		case c == '"' || c < ' ':
			return dst[:orig], false
		case c < utf8.RuneSelf:
			start := i
			for i < len(s) && s[i] >= ' ' && s[i] < utf8.RuneSelf && s[i] != '"' && s[i] != '\\' {
				i++
			}
			dst = append(dst, s[start:i]...)
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size
		}
	}
	return dst, true
}

// appendEscape appends the character of the escape sequence at the start
// of s and returns how many bytes it took, 0 for an invalid escape.
func appendEscape(dst, s []byte) ([]byte, int) {
	if len(s) < 2 {
		return dst, 0
	}
	switch s[1] {
	case '"', '\\', '/':
		return append(dst, s[1]), 2
	case 'b':
		return append(dst, '\b'), 2
	case 'f':
		return append(dst, '\f'), 2
	case 'n':
		return append(dst, '\n'), 2
	case 'r':
		return append(dst, '\r'), 2
	case 't':
		return append(dst, '\t'), 2
	case 'u':
		r, ok := hex4(s[2:])
		if !ok {
			return dst, 0
		}
		if utf16.IsSurrogate(r) {
			if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
				if r2, ok := hex4(s[8:]); ok {
					if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
						return utf8.AppendRune(dst, pair), 12
					}
				}
			}
			r = utf8.RuneError // a lone surrogate, as encoding/json decodes it
		}
		return utf8.AppendRune(dst, r), 6
	}
	return dst, 0
}

// hex4 decodes the four hex digits at the start of s.
func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
