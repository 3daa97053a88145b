package llm

import (
	"testing"
	"unicode/utf8"
)

// estimateTokensRef is EstimateTokens without its eight-byte fast path.
func estimateTokensRef(s string) int {
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

// FuzzEstimateTokens holds the fast path to the rune-by-rune count, on
// ASCII, multi-byte and invalid UTF-8 text cut at every alignment.
func FuzzEstimateTokens(f *testing.F) {
	for _, s := range []string{"", "func main() {}\n", "héllo wörld, 你好世界 and more ascii text", "\xff\xfe abcdefgh \xe4\xbd", "12345678é12345678"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for k := range min(len(s), 9) {
			if got, want := EstimateTokens(s[k:]), estimateTokensRef(s[k:]); got != want {
				t.Fatalf("EstimateTokens(%q) = %d, want %d", s[k:], got, want)
			}
		}
	})
}

func BenchmarkEstimateTokens(b *testing.B) {
	s := string(make([]byte, 2500))
	for b.Loop() {
		EstimateTokens(s)
	}
}

func BenchmarkEstimateTokensRef(b *testing.B) {
	s := string(make([]byte, 2500))
	for b.Loop() {
		estimateTokensRef(s)
	}
}
