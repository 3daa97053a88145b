package llm

import "unicode/utf8"

// EstimateTokens approximates the number of tokens of s for budgeting,
// cheaply and without a tokenizer: every 4 ASCII bytes count as one token
// (rounded up; English text and code average about 4 bytes per token in
// GPT-style BPE vocabularies) and every non-ASCII rune as one token (CJK
// characters are roughly one token each; accented Latin letters are
// overcounted, which errs on the safe side of a budget).
func EstimateTokens(s string) int {
	var c TokenCounter
	c.Add(s)
	return c.Tokens()
}

// TokenCounter is EstimateTokens of a text given in pieces, without keeping
// the text: after any pieces were added, Tokens is EstimateTokens of their
// concatenation (FuzzTokenCounter holds it to that). A rune split between
// two pieces counts as one, as in the concatenation: the start of a rune
// that ends a piece is held until the next completes it. The zero value is
// a counter of no text.
type TokenCounter struct {
	ascii, other int
	held         [utf8.UTFMax - 1]byte
	n            int // the held bytes
}

// Add counts s after the pieces added before.
func (c *TokenCounter) Add(s string) { addTokens(c, s) }

// AddBytes is Add of b's text.
func (c *TokenCounter) AddBytes(b []byte) { addTokens(c, b) }

// Tokens is EstimateTokens of the pieces added so far, joined. A held
// start of a rune that nothing completed counts as its bytes, each one a
// rune, as EstimateTokens counts an incomplete sequence at a text's end.
func (c *TokenCounter) Tokens() int { return (c.ascii+3)/4 + c.other + c.n }

func addTokens[T string | []byte](c *TokenCounter, s T) {
	if c.n > 0 {
		// The runes that start in the held bytes, completed by s's first.
		var b [2 * utf8.UTFMax]byte
		k := copy(b[:], c.held[:c.n])
		k += copy(b[k:], s)
		i := 0
		for i < c.n {
			if !utf8.FullRune(b[i:k]) {
				// s was too short to complete it: all of s is held.
				c.n = copy(c.held[:], b[i:k])
				return
			}
			if b[i] < utf8.RuneSelf {
				c.ascii++
				i++
				continue
			}
			_, size := utf8.DecodeRune(b[i:k])
			c.other++
			i += size
		}
		s = s[i-c.n:]
		c.n = 0
	}
	for i := 0; i < len(s); {
		// Eight ASCII bytes at a time: the common case of code and English.
		for i+8 <= len(s) {
			w := s[i : i+8]
			x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
				uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
			if x&0x8080808080808080 != 0 {
				break
			}
			c.ascii += 8
			i += 8
		}
		if i >= len(s) {
			break
		}
		if s[i] < utf8.RuneSelf {
			c.ascii++
			i++
			continue
		}
		r := string(s[i:min(i+utf8.UTFMax, len(s))])
		if !utf8.FullRuneInString(r) {
			// The start of a rune the next piece may complete.
			c.n = copy(c.held[:], r)
			return
		}
		_, size := utf8.DecodeRuneInString(r)
		c.other++
		i += size
	}
}
