package llm

import "unicode/utf8"

// EstimateTokens approximates the number of tokens of s for budgeting,
// cheaply and without a tokenizer: every 4 ASCII bytes count as one token
// (rounded up; English text and code average about 4 bytes per token in
// GPT-style BPE vocabularies) and every non-ASCII rune as one token (CJK
// characters are roughly one token each; accented Latin letters are
// overcounted, which errs on the safe side of a budget).
func EstimateTokens(s string) int {
	ascii, other := 0, 0
	for i := 0; i < len(s); {
		// Eight ASCII bytes at a time: the common case of code and English.
		for i+8 <= len(s) {
			w := s[i : i+8]
			x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
				uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
			if x&0x8080808080808080 != 0 {
				break
			}
			ascii += 8
			i += 8
		}
		if i >= len(s) {
			break
		}
		if s[i] < utf8.RuneSelf {
			ascii++
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		other++
		i += size
	}
	return (ascii+3)/4 + other
}
