package index

import (
	"flag"
	"slices"
	"testing"

	"github.com/agentgw/agentgw/knowledge/chunk"
)

var bridgeQuality = flag.Bool("index.bridge", false, "measure TestRetrievalQuality's questions with the vocabulary bridge of knowledge/eval's README (LearnExpansions)")

func TestLearnExpansions(t *testing.T) {
	cs := []chunk.Chunk{
		{FileName: "a.go", Symbol: "Marshal", Text: "// Marshal returns the JSON encoding of v.\nfunc Marshal(v any) ([]byte, error) {}"},
		{FileName: "a.go", Symbol: "MarshalIndent", Text: "// MarshalIndent is like Marshal but indents the JSON encoding.\nfunc MarshalIndent(v any) ([]byte, error) {}"},
		{FileName: "a.go", Symbol: "Encoder.Encode", Text: "// Encode writes the JSON encoding of v to the stream.\nfunc (e *Encoder) Encode(v any) error {}"},
		{FileName: "a.go", Symbol: "Open", Text: "// Open opens the named file for reading.\nfunc Open(name string) (*File, error) {}"},
		{FileName: "a.go", Text: "// not a declaration\nvar x = 1"},
	}
	got := LearnExpansions(cs, chunk.Tokens, 2, 3, false)
	want := map[string][]string{"encod": {"marshal"}, "json": {"marshal"}}
	if len(got) != len(want) {
		t.Errorf("LearnExpansions = %q, want %q", got, want)
	}
	for w, es := range want {
		if !slices.Equal(got[w], es) {
			t.Errorf("LearnExpansions[%q] = %q, want %q", w, got[w], es)
		}
	}
}

// TestRetrievalQualityBridge measures TestRetrievalQuality's questions
// lexically with the bridge chosen on knowledge/eval's development half.
func TestRetrievalQualityBridge(t *testing.T) {
	if !*bridgeQuality {
		t.Skip("-index.bridge")
	}
	files := loadCorpus(t)
	qs := loadQuestions(t)
	var cs []chunk.Chunk
	for _, f := range files {
		cs = append(cs, f.chunks...)
	}
	table := LearnExpansions(cs, chunk.Tokens, 5, 1, false)
	r := DefaultRanking()
	r.Expanded = 0.1
	ix := openIndex(t, backends[0].newDB(t), Options{Tokenizer: chunk.Tokens, Ranking: &r,
		Expand: func(t string) []string { return table[t] }})
	indexCorpus(t, ix, "lexical", files)
	got := measure(t, ix, "lexical", qs)
	t.Logf("lexical+bridge %s (%d words with expansions)", got, len(table))
}

// BenchmarkSearchBridge searches TestRetrievalQuality's 75 questions over
// its corpus (SQLite) and reports the CPU and allocations a search takes,
// without expansions (off: the default) and with the bridge of
// TestRetrievalQualityBridge.
func BenchmarkSearchBridge(b *testing.B) {
	files := loadCorpus(b)
	qs := loadQuestions(b)
	var cs []chunk.Chunk
	for _, f := range files {
		cs = append(cs, f.chunks...)
	}
	table := LearnExpansions(cs, chunk.Tokens, 5, 1, false)
	db := backends[0].newDB(b)
	indexCorpus(b, openIndex(b, db, Options{Tokenizer: chunk.Tokens}), "kb", files)
	r := DefaultRanking()
	r.Expanded = 0.1
	for _, mode := range []struct {
		name string
		opts Options
	}{
		{"off", Options{Tokenizer: chunk.Tokens}},
		{"bridge", Options{Tokenizer: chunk.Tokens, Ranking: &r, Expand: func(t string) []string { return table[t] }}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			benchSearches(b, openIndex(b, db, mode.opts), qs)
		})
	}
}
