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
