package sse

import (
	"unicode/utf8"

	"github.com/agentgw/agentgw/internal/jsonscan"
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
				// A run of plain ASCII is found eight bytes at a time
				// and copied whole.
				i += jsonscan.PlainASCII(s[i:])
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
// does not allocate when dst has room. It is jsonscan.AppendUnquoted, the
// request path's; FuzzAppendUnquoted holds it to encoding/json.
func AppendUnquoted(dst, q []byte) (_ []byte, ok bool) {
	return jsonscan.AppendUnquoted(dst, q)
}
