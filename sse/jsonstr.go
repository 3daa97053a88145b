package sse

import (
	"unicode/utf16"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// plainASCII[b] is true for the ASCII bytes that stand for themselves inside a
// JSON string: printable and neither the quote nor the backslash.
var plainASCII = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// AppendString appends s to dst as a JSON string, quotes included, and
// returns the extended buffer. The result is valid JSON for any input:
// quotes, backslashes and control characters are escaped (\n, \r, \t, \b, \f
// in their short form, others as \u00XX), U+2028 and U+2029 are escaped for
// JavaScript consumers, and invalid UTF-8 becomes U+FFFD. Unlike
// encoding/json it leaves <, > and & alone. It does not allocate when dst
// has room.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if plainASCII[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendEscapedByte(dst, b)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\u202`...)
			dst = append(dst, hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendEscapedByte appends the escape sequence of an ASCII byte that may not
// appear as itself inside a JSON string.
func appendEscapedByte(dst []byte, b byte) []byte {
	switch b {
	case '"', '\\':
		return append(dst, '\\', b)
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
}

// AppendUnquoted appends the text of the JSON string literal q (quotes
// included, as Field returns it) to dst. ok is false, and dst returned
// unchanged, when q is not a valid JSON string, null for instance. Like
// encoding/json it turns invalid UTF-8 and lone surrogates into U+FFFD. It
// does not allocate when dst has room.
func AppendUnquoted(dst, q []byte) (_ []byte, ok bool) {
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
			if dst, n = appendUnescaped(dst, s[i:]); n == 0 {
				return dst[:orig], false
			}
			i += n
		case c < utf8.RuneSelf && !plainASCII[c]: // a quote or a control character
			return dst[:orig], false
		case c < utf8.RuneSelf:
			start := i
			for i < len(s) && s[i] < utf8.RuneSelf && plainASCII[s[i]] {
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

// appendUnescaped appends the character of the escape sequence at the
// start of s and returns how many bytes it took, 0 for an invalid escape.
func appendUnescaped(dst, s []byte) ([]byte, int) {
	n := escapeLen(s)
	switch {
	case n == 0:
		return dst, 0
	case n == 2:
		switch c := s[1]; c {
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
		default: // '"', '\\' or '/'
			return append(dst, c), 2
		}
	}
	r := hex4(s[2:])
	if utf16.IsSurrogate(r) {
		if len(s) >= 12 && s[6] == '\\' && escapeLen(s[6:]) == 6 {
			if pair := utf16.DecodeRune(r, hex4(s[8:])); pair != utf8.RuneError {
				return utf8.AppendRune(dst, pair), 12
			}
		}
		r = utf8.RuneError // a lone surrogate, as encoding/json decodes it
	}
	return utf8.AppendRune(dst, r), 6
}

// hex4 decodes the four hex digits, already validated, that start s.
func hex4(s []byte) rune {
	var r rune
	for _, c := range s[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
