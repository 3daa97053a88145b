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

// FuzzTokenCounter holds a TokenCounter given s in pieces (cut where the
// bits of cuts say: bit i set cuts s after byte i, so runes are split
// everywhere) to the rune-by-rune count of s, after every piece, with Add and
// AddBytes alternated.
func FuzzTokenCounter(f *testing.F) {
	f.Add("plain ASCII text of an answer, longer than eight bytes", uint64(1<<10|1<<11))
	f.Add("é€😀 split runes: é€😀", uint64(0xffffffffffffffff))
	f.Add("\xe2\x82", uint64(1))             // an incomplete rune at the end
	f.Add("\xf0\x9f\x98a\xe2", uint64(3))    // an incomplete rune ended by ASCII
	f.Add("\xe2\x82\xe2\x82\xac", uint64(2)) // an incomplete rune, then a whole one
	f.Add("\xc3", uint64(0))
	f.Add("", uint64(0))
	f.Fuzz(func(t *testing.T, s string, cuts uint64) {
		var c TokenCounter
		start := 0
		add := func(end int, bytes bool) {
			if bytes {
				c.AddBytes([]byte(s[start:end]))
			} else {
				c.Add(s[start:end])
			}
			if got, want := c.Tokens(), estimateTokensRef(s[:end]); got != want {
				t.Fatalf("after %q in pieces (cuts %b): %d tokens, want %d", s[:end], cuts, got, want)
			}
			start = end
		}
		for i := range min(len(s), 64) {
			if cuts&(1<<i) != 0 {
				add(i+1, i%2 == 0)
			}
		}
		add(len(s), false)
	})
}

// TestTokenCounterSplitRune: a rune split between pieces counts once.
func TestTokenCounterSplitRune(t *testing.T) {
	var c TokenCounter
	for _, p := range []string{"ab", "\xe2", "\x82", "\xac", "cd"} { // "ab€cd"
		c.Add(p)
	}
	if got := c.Tokens(); got != 2 { // 4 ASCII bytes, 1 rune
		t.Errorf("Tokens() = %d, want 2", got)
	}
}

// BenchmarkTokenCounter is the counter given a 2 KB answer in 20 pieces
// of about a hundred ASCII bytes, as the OpenAI endpoint's emitter does.
func BenchmarkTokenCounter(b *testing.B) {
	piece := []byte("token 00 of the answer: some text of about a hundred bytes, as a model streams it to the IDE")
	for b.Loop() {
		var c TokenCounter
		for range 20 {
			c.AddBytes(piece)
		}
		if c.Tokens() == 0 {
			b.Fatal("no tokens")
		}
	}
}
