package contextvars

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Flags scanString reports about a string's raw text.
const (
	strEscaped  = 1 << iota // contains a backslash escape
	strNonASCII             // contains bytes >= 0x80
)

const (
	swarLo = 0x0101010101010101
	swarHi = 0x8080808080808080
)

// scanString validates the string starting at p.i (a '"'), moves past it and
// returns the index of its closing quote and its flags. Eight bytes are
// checked at a time while none of them needs attention.
func (p *parser) scanString() (end, flags int, err error) {
	d := p.data
	i := p.i + 1
	for {
		for i+8 <= len(d) {
			x := binary.LittleEndian.Uint64(d[i:])
			q := x ^ (swarLo * '"')
			b := x ^ (swarLo * '\\')
			special := ((x - swarLo*0x20) & ^x) | ((q - swarLo) & ^q) | ((b - swarLo) & ^b)
			if special&swarHi != 0 {
				// The lowest flagged byte is exact (borrows only run
				// upwards): skip straight to it.
				k := bits.TrailingZeros64(special&swarHi) / 8
				if x&(1<<(8*k)-1)&swarHi != 0 {
					flags |= strNonASCII
				}
				i += k
				break
			}
			if x&swarHi != 0 {
				flags |= strNonASCII
			}
			i += 8
		}
		if i >= len(d) {
			p.i = i
			return 0, 0, p.unexpected("in string literal")
		}
		c := d[i]
		switch {
		case c == '"':
			p.i = i + 1
			return i, flags, nil
		case c == '\\':
			flags |= strEscaped
			n, ok := escapeLen(d[i:])
			if !ok {
				p.i = i + min(n, len(d)-i)
				return 0, 0, p.unexpected("in string escape code")
			}
			i += n
		case c < 0x20:
			p.i = i
			return 0, 0, p.unexpected("in string literal")
		default:
			if c >= 0x80 {
				flags |= strNonASCII
			}
			i++
		}
	}
}

// escapeLen validates the escape at the start of s (a backslash) and returns
// its length; when invalid, the length up to the offending byte.
func escapeLen(s []byte) (int, bool) {
	if len(s) < 2 {
		return 1, false
	}
	switch s[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, true
	case 'u':
		for k := 2; k < 6; k++ {
			if k >= len(s) || !isHex(s[k]) {
				return k, false
			}
		}
		return 6, true
	}
	return 1, false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// stringValue reads the string at p.i and returns its decoded value.
func (p *parser) stringValue() (string, error) {
	start := p.i
	end, flags, err := p.scanString()
	if err != nil {
		return "", err
	}
	return decodeString(p.data[start:end+1], flags)
}

// decodeString decodes quoted, a validated JSON string literal, exactly as
// encoding/json does (invalid UTF-8 and lone surrogates become U+FFFD).
func decodeString(quoted []byte, flags int) (string, error) {
	raw := quoted[1 : len(quoted)-1]
	if flags&strNonASCII != 0 && !utf8.Valid(raw) {
		var s string
		if err := json.Unmarshal(quoted, &s); err != nil {
			return "", &fieldError{reason: "invalid JSON: " + err.Error()}
		}
		return s, nil
	}
	if flags&strEscaped == 0 {
		return string(raw), nil
	}
	return unescape(raw), nil
}

// unescape decodes the escapes of raw, which is valid UTF-8 with valid escapes.
func unescape(raw []byte) string {
	var b strings.Builder
	b.Grow(len(raw))
	for {
		k := indexBackslash(raw)
		if k < 0 {
			b.Write(raw)
			return b.String()
		}
		b.Write(raw[:k])
		raw = raw[k:]
		if c := raw[1]; c != 'u' {
			b.WriteByte(unescaped[c])
			raw = raw[2:]
			continue
		}
		r, n := unicodeEscape(raw)
		b.WriteRune(r)
		raw = raw[n:]
	}
}

// unescaped maps the letter of a one-letter escape to the byte it stands for.
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// indexBackslash is bytes.IndexByte(s, '\\') for text whose escapes are
// dense, like source code, whose every line ends with one: the first 32
// bytes are searched eight at a time inline, the rest by IndexByte.
func indexBackslash(s []byte) int {
	i := 0
	for ; i+8 <= len(s) && i < 32; i += 8 {
		x := binary.LittleEndian.Uint64(s[i:]) ^ (swarLo * '\\')
		if t := (x - swarLo) &^ x & swarHi; t != 0 {
			// The lowest flagged byte is exact (borrows only run upwards).
			return i + bits.TrailingZeros64(t)/8
		}
	}
	if k := bytes.IndexByte(s[i:], '\\'); k >= 0 {
		return i + k
	}
	return -1
}

// unicodeEscape decodes the \uXXXX escape (and a following low surrogate)
// at the start of s and returns the rune and the bytes consumed.
func unicodeEscape(s []byte) (rune, int) {
	r := hex4(s[2:6])
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' && isHex(s[8]) && isHex(s[9]) && isHex(s[10]) && isHex(s[11]) {
		if dec := utf16.DecodeRune(r, hex4(s[8:12])); dec != unicode.ReplacementChar {
			return dec, 12
		}
	}
	return unicode.ReplacementChar, 6
}

func hex4(s []byte) rune {
	var r rune
	for _, c := range s[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
