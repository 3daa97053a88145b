package jsonscan

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

const (
	swarLo = 0x0101010101010101
	swarHi = 0x8080808080808080
)

// specialBytes flags, in its high bits, the bytes of the little-endian word
// x that a JSON string cannot hold as they are: control characters, '"' and
// '\\'. Only the lowest flag is exact (a borrow runs upwards and may flag a
// byte above it), which is all its callers use: where the first one is.
func specialBytes(x uint64) uint64 {
	q := x ^ (swarLo * '"')
	b := x ^ (swarLo * '\\')
	return (((x - swarLo*0x20) & ^x) | ((q - swarLo) & ^q) | ((b - swarLo) & ^b)) & swarHi
}

// PlainASCII returns the length of the longest prefix of s made of ASCII
// bytes that stand for themselves inside a JSON string (printable, neither
// '"' nor '\\'), testing eight bytes at a time: what an encoder may copy as
// it is.
func PlainASCII(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		// The lowest flag of each is exact, so the lowest of both is.
		if m := specialBytes(x) | x&swarHi; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			break
		}
	}
	return i
}

// badUTF8 is the syntax error for a string at start whose text is not UTF-8.
func badUTF8(start int) error {
	return &SyntaxError{Offset: start, msg: fmt.Sprintf("invalid UTF-8 in string at offset %d", start)}
}

// ScanString validates the string starting at Pos (a '"'), moves past it and
// returns the index of its closing quote and whether the raw text is the
// string itself (ASCII without escapes). Eight bytes are checked at a time
// while none of them needs attention; a string with non-ASCII bytes is then
// checked to be UTF-8 (escapes are ASCII, so the raw text is UTF-8 exactly
// when the decoded one is).
func (s *Scanner) ScanString() (end int, plain bool, err error) {
	d := s.Data
	start := s.Pos
	i := start + 1
	plain = true
	ascii := true
	for {
		for i+8 <= len(d) {
			x := binary.LittleEndian.Uint64(d[i:])
			if special := specialBytes(x); special != 0 {
				// Skip straight to the first byte that needs attention.
				k := bits.TrailingZeros64(special) / 8
				if x&(1<<(8*k)-1)&swarHi != 0 {
					ascii = false
				}
				i += k
				break
			}
			if x&swarHi != 0 {
				ascii = false
			}
			i += 8
		}
		if i >= len(d) {
			s.Pos = i
			return 0, false, s.Unexpected("in string literal")
		}
		c := d[i]
		switch {
		case c == '"':
			if !ascii && !s.AcceptInvalidUTF8 && !utf8.Valid(d[start+1:i]) {
				s.Pos = start
				return 0, false, badUTF8(start)
			}
			s.Pos = i + 1
			return i, plain && ascii, nil
		case c == '\\':
			plain = false
			n, ok := escapeLen(d[i:])
			if !ok {
				s.Pos = i + min(n, len(d)-i)
				return 0, false, s.Unexpected("in string escape code")
			}
			i += n
		case c < 0x20:
			s.Pos = i
			return 0, false, s.Unexpected("in string literal")
		default:
			if c >= 0x80 {
				ascii = false
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

// arenaBlock is the most a string arena block is made for the input left;
// a larger string moves to a block of its own.
const arenaBlock = 64 << 10

// minRoom is the least room a block must have left for a string to start
// in it: the word loop stores eight bytes at a time.
const minRoom = 16

// ReadString reads the string at Pos and returns its decoded value,
// validating and decoding in one pass. Its bytes go to the scanner's arena,
// eight at a time while none needs attention (each word is stored before
// it is looked at; the arena's slack takes the bytes past a special one),
// and the value is a string over them, so the strings of one input share a
// few allocations.
//
// A string starts in the current block if it has minRoom bytes left, and
// moves on only if it outgrows the block, to a block with room for all of
// the input left: so the blocks made are the input's size, the strings that
// filled them, plus at most one block abandoned by a string that moved and
// one for the rest of the input: about twice the input at most.
func (s *Scanner) ReadString() (string, error) {
	d := s.Data
	start := s.Pos
	i := start + 1
	if s.arena == nil {
		s.arena = new([]byte)
	}
	block := arenaBlock
	if s.block > 0 {
		block = s.block
	}
	if cap(*s.arena)-len(*s.arena) < minRoom {
		*s.arena = make([]byte, 0, min(len(d)-i, block)+minRoom)
	}
	buf := (*s.arena)[:cap(*s.arena)]
	mark := len(*s.arena)
	o := mark
	var seen uint64 // the bytes copied, or'ed: their high bits tell non-ASCII
	for {
		// The word loop also stops when the block has no room for a word;
		// the check below then moves the string on.
		for lastWord, lastRoom := len(d)-8, len(buf)-8; i <= lastWord && o <= lastRoom; {
			x := binary.LittleEndian.Uint64(d[i:])
			binary.LittleEndian.PutUint64(buf[o:], x)
			if special := specialBytes(x); special != 0 {
				// Keep the bytes before the first one that needs attention.
				k := bits.TrailingZeros64(special) / 8
				seen |= x & (1<<(8*k) - 1)
				i += k
				o += k
				break
			}
			seen |= x
			i += 8
			o += 8
		}
		if i >= len(d) {
			s.Pos = i
			return "", s.Unexpected("in string literal")
		}
		if len(buf)-o < 8 {
			// Room for the next word, or for what a byte or an escape
			// below writes.
			buf, mark, o = s.moveString(buf[mark:o], len(d)-i)
			continue
		}
		switch c := d[i]; {
		case c == '"':
			if o == mark {
				s.Pos = i + 1
				return "", nil
			}
			// The arena only grows: these bytes are never written again.
			str := unsafe.String(&buf[mark], o-mark)
			if seen&swarHi != 0 && !utf8.ValidString(str) {
				// Escapes decode to whole runes: the JSON text itself
				// holds the invalid bytes.
				if !s.AcceptInvalidUTF8 {
					s.Pos = start
					return "", badUTF8(start)
				}
				// Decoded again, as encoding/json does it (rare: a copy).
				fixed, _ := AppendUnquoted(nil, d[start:i+1])
				s.Pos = i + 1
				return string(fixed), nil
			}
			s.Pos = i + 1
			*s.arena = buf[:o]
			return str, nil
		case c == '\\':
			if i+1 < len(d) {
				if u := unescaped[d[i+1]]; u != 0 {
					buf[o] = u
					o++
					i += 2
					// A run of them ("\n\t\t" in source code) is decoded
					// here, within the eight bytes of room checked above,
					// rather than each after a word that stops at it.
					for n := 1; n < 8 && i+1 < len(d) && d[i] == '\\'; n++ {
						if u = unescaped[d[i+1]]; u == 0 {
							break
						}
						buf[o] = u
						o++
						i += 2
					}
					continue
				}
			}
			r, n := unescape(d[i:])
			if r < 0 {
				s.Pos = i + min(n, len(d)-i)
				return "", s.Unexpected("in string escape code")
			}
			o += utf8.EncodeRune(buf[o:], r)
			i += n
		case c < 0x20:
			s.Pos = i
			return "", s.Unexpected("in string literal")
		default:
			seen |= uint64(c)
			buf[o] = c
			o++
			i++
		}
	}
}

// moveString moves the part of a string decoded so far to a new block with
// room for the rest of the input (at most rest bytes of JSON, plus a word
// of slack), which becomes the arena, and returns the block, the string's
// start in it and its end. The old block keeps the strings already made.
func (s *Scanner) moveString(part []byte, rest int) (buf []byte, mark, o int) {
	buf = make([]byte, 0, len(part)+rest+minRoom)
	buf = append(buf, part...)
	*s.arena = buf[:0]
	return buf[:cap(buf)], 0, len(part)
}

// unescaped maps the letter of a one-letter escape to the byte it stands for.
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// unescape decodes the escape sequence at the start of s (a backslash):
// the one implementation of JSON's escapes, for ReadString and
// AppendUnquoted. It returns the rune and the bytes consumed, or -1 and the
// length up to the offending byte when the escape is invalid. A \u escape
// of a surrogate takes the low surrogate after it along; a lone surrogate
// decodes to U+FFFD, as in encoding/json.
func unescape(s []byte) (rune, int) {
	if len(s) >= 2 {
		if u := unescaped[s[1]]; u != 0 {
			return rune(u), 2
		}
	}
	if n, ok := escapeLen(s); !ok {
		return -1, n
	}
	return unicodeEscape(s)
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

// plainByte[c] is true for the bytes that stand for themselves inside a
// JSON string: all but control characters, the quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendUnquoted appends the text of the JSON string literal q (quotes
// included) to dst. ok is false, and dst returned unchanged, when q is not
// a valid JSON string. Like encoding/json (and ReadString with
// AcceptInvalidUTF8) it turns invalid UTF-8 and lone surrogates into
// U+FFFD. It does not allocate when dst has room.
func AppendUnquoted(dst, q []byte) (_ []byte, ok bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return dst, false
	}
	orig := len(dst)
	s := q[1 : len(q)-1]
	for i := 0; i < len(s); {
		// A run of bytes that stand for themselves, eight at a time
		// while none needs attention.
		start := i
		var seen uint64 // the run's bytes, or'ed: their high bits tell non-ASCII
		for i+8 <= len(s) {
			x := binary.LittleEndian.Uint64(s[i:])
			if specialBytes(x) != 0 {
				break
			}
			seen |= x
			i += 8
		}
		for i < len(s) && plainByte[s[i]] {
			seen |= uint64(s[i])
			i++
		}
		if seen&swarHi == 0 {
			dst = append(dst, s[start:i]...)
		} else {
			// Escapes and the bytes that end a run are ASCII: a run
			// never splits a valid UTF-8 sequence.
			dst = appendValidUTF8(dst, s[start:i])
		}
		if i == len(s) {
			break
		}
		if s[i] != '\\' { // a quote or a control character
			return dst[:orig], false
		}
		r, n := unescape(s[i:])
		if r < 0 {
			return dst[:orig], false
		}
		dst = utf8.AppendRune(dst, r)
		i += n
	}
	return dst, true
}

// appendValidUTF8 appends b with each byte that is not part of a valid
// UTF-8 sequence replaced by U+FFFD, as encoding/json decodes strings.
func appendValidUTF8(dst, b []byte) []byte {
	if utf8.Valid(b) {
		return append(dst, b...)
	}
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, b[:size]...)
		}
		b = b[size:]
	}
	return dst
}
