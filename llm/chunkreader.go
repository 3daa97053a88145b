package llm

import (
	"bytes"

	"github.com/agentgw/agentgw/internal/jsonscan"
)

// ChunkReader is ChunkPlainText for the chunks of one stream. An upstream
// writes its chunks alike but for their text: the same id, created time,
// model and choice, the text's string, then the same end (OpenAI's
// `"},"logprobs":null,"finish_reason":null}]}`). The reader keeps the
// bytes around the text of the last chunk it walked, and a chunk that has
// the same bytes before its text and after it, up to the end of its
// choices, is read by scanning only the text's string and the top-level
// members after the choices (OpenAI's "obfuscation", say), not walked
// whole. Any other chunk is walked as ChunkPlainText walks it, and its
// layout kept for the next.
//
// The shortcut gives what the walk gives: JSON's grammar is context free,
// so bytes that were a valid chunk's up to a string token, then another
// valid string token, then the same bytes up to the end of its choices put
// the scanner in the same state there, and the text, which was that one
// string's (every other content of the chunk empty or null), is the new
// string's. The members after the choices are checked as the walk checks
// them and may not be another "choices". FuzzChunkReader holds it to
// ChunkPlainText over pairs of chunks made to share a layout.
//
// The zero value is ready to use. It keeps copies of the bytes it
// compares, so the chunks it is given may be reused once it returned. A
// ChunkReader is not safe for concurrent use.
type ChunkReader struct {
	// head is the last walked chunk up to its text's opening quote,
	// included; mid from the closing quote to the end of its choices'
	// value. head is empty when that chunk's text was not one string.
	// Both are in buf, one copy.
	head, mid, buf []byte
}

// PlainText returns what ChunkPlainText(raw) returns.
func (c *ChunkReader) PlainText(raw []byte) (plain []byte, ok bool, text string) {
	if plain, ok, text, hit := c.fast(raw); hit {
		return plain, ok, text
	}
	plain, ok, text, at := chunkText(raw, true)
	if at.close == 0 {
		c.head, c.mid = c.head[:0], c.mid[:0]
		return plain, ok, text
	}
	if n := at.open + 1 + at.choicesEnd - at.close; cap(c.buf) < n {
		c.buf = make([]byte, 0, n)
	}
	c.buf = append(append(c.buf[:0], raw[:at.open+1]...), raw[at.close:at.choicesEnd]...)
	c.head, c.mid = c.buf[:at.open+1], c.buf[at.open+1:]
	return plain, ok, text
}

// fast reads raw by the kept layout; hit is false when raw does not have
// it, or its text is not plain (rare: the walk decodes it).
func (c *ChunkReader) fast(raw []byte) (plain []byte, ok bool, text string, hit bool) {
	if len(c.head) == 0 || !bytes.HasPrefix(raw, c.head) {
		return nil, false, "", false
	}
	// Depth 1: in the top-level object, as the walk is after the
	// choices, so that nesting after them is limited alike.
	s := jsonscan.Scanner{Data: raw, Pos: len(c.head) - 1, Depth: 1, AcceptInvalidUTF8: true}
	end, isPlain, err := s.ScanString()
	if err != nil || !isPlain || !bytes.HasPrefix(raw[end:], c.mid) {
		return nil, false, "", false
	}
	s.Pos = end + len(c.mid)
	if !restMembers(&s) {
		return nil, false, "", false
	}
	if end == len(c.head) {
		return nil, true, "", true // "": no text
	}
	return raw[len(c.head):end], true, "", true
}

// restMembers checks what follows a chunk's choices at s: the top-level
// object's other members, none of them a "choices" (a key with an escape
// might spell it: the walk decodes it), its end and nothing but
// whitespace after it.
func restMembers(s *jsonscan.Scanner) bool {
	for {
		m, more, err := s.NextKey(false)
		if err != nil {
			return false
		}
		if !more {
			return s.End() == nil
		}
		key := s.Data[m.KeyStart:m.KeyEnd]
		if string(key) == `"choices"` || bytes.IndexByte(key, '\\') >= 0 || s.Skip() != nil {
			return false
		}
	}
}
