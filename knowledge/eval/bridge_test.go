package eval

import (
	"context"
	"flag"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentgw/agentgw/knowledge/chunk"
	"github.com/agentgw/agentgw/knowledge/index"
)

var bridgeGrid = flag.Bool("eval.bridge", false, "score a vocabulary bridge learned from the corpora (doc words to identifier parts) on the development half only")

// learnBridge learns index.LearnExpansions' table from the chunks of
// corpora.
func learnBridge(corpora [][]File, minCount, perWord int, whole bool) map[string][]string {
	var cs []chunk.Chunk
	for _, files := range corpora {
		for _, f := range files {
			cs = append(cs, f.Chunks...)
		}
	}
	return index.LearnExpansions(cs, chunk.Tokens, minCount, perWord, whole)
}

func TestBridgeLearns(t *testing.T) {
	f := File{Name: "a.go", Chunks: []chunk.Chunk{
		{FileName: "a.go", Symbol: "Marshal", Text: "// Marshal returns the JSON encoding of v.\nfunc Marshal(v any) ([]byte, error) {}"},
		{FileName: "a.go", Symbol: "MarshalIndent", Text: "// MarshalIndent is like Marshal but indents the JSON encoding.\nfunc MarshalIndent(v any) ([]byte, error) {}"},
		{FileName: "a.go", Symbol: "Encoder.Encode", Text: "// Encode writes the JSON encoding of v to the stream.\nfunc (e *Encoder) Encode(v any) error {}"},
		{FileName: "a.go", Symbol: "Open", Text: "// Open opens the named file for reading.\nfunc Open(name string) (*File, error) {}"},
	}}
	got := learnBridge([][]File{{f}}, 2, 3, false)
	if want := []string{"marshal"}; !slices.Equal(got["encod"], want) {
		t.Errorf("encod → %q, want %q (all: %v)", got["encod"], want, got)
	}
	if _, ok := got["file"]; ok {
		t.Errorf("file → %q, want none (seen once)", got["file"])
	}
}

func TestBridgeGrid(t *testing.T) {
	if !*bridgeGrid {
		t.Skip("-eval.bridge")
	}
	s := loadSuite(t)
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "eval.db")
	ix, closer, err := OpenIndex(ctx, db, Configs()[0].Options)
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	if err := s.IndexAll(ctx, ix); err != nil {
		t.Fatal(err)
	}
	corpora := [][]File{s.Corpus(CorpusGo), s.Corpus(CorpusJS)}
	tr, err := s.Tune(ctx, ix)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%-22s go %s  js %s  all %s", "none", tr.Metrics["go-handwritten/dev"], tr.Metrics["js-handwritten/dev"], tr.Metrics["all/dev"])
	for _, whole := range []bool{false, true} {
		for _, minCount := range []int{3, 5, 10} {
			for _, per := range []int{1, 3} {
				table := learnBridge(corpora, minCount, per, whole)
				if per == 3 {
					// The words the development misses lack (README).
					for _, w := range []string{"static", "directori", "written", "unpars", "later", "browser", "sent", "cancell"} {
						t.Logf("whole %-5v min %2d: %s → %q", whole, minCount, w, table[w])
					}
				}
				for _, w := range []float64{0.1, 0.2, 0.35, 0.5, 1} {
					r := index.DefaultRanking()
					r.Expanded = w
					opts := Configs()[0].Options
					opts.Ranking = &r
					opts.Expand = func(t string) []string { return table[t] }
					ix2, c2, err := OpenIndex(ctx, db, opts)
					if err != nil {
						t.Fatal(err)
					}
					tr, err := s.Tune(ctx, ix2)
					_ = c2.Close()
					if err != nil {
						t.Fatal(err)
					}
					t.Logf("whole %-5v min %2d per %d w %.2f  go %s  js %s  all %s", whole, minCount, per, w,
						tr.Metrics["go-handwritten/dev"], tr.Metrics["js-handwritten/dev"], tr.Metrics["all/dev"])
				}
			}
		}
	}
}

// TestBridgeScore scores both halves with the bridge chosen on the
// development half (TestBridgeGrid): PMI, minimum count 5, 1 term a word,
// weight 0.1.
func TestBridgeScore(t *testing.T) {
	if !*bridgeGrid {
		t.Skip("-eval.bridge")
	}
	s := loadSuite(t)
	ctx := context.Background()
	table := learnBridge([][]File{s.Corpus(CorpusGo), s.Corpus(CorpusJS)}, 5, 1, false)
	r := index.DefaultRanking()
	r.Expanded = 0.1
	opts := Configs()[0].Options
	opts.Ranking = &r
	opts.Expand = func(t string) []string { return table[t] }
	ix, closer, err := OpenIndex(ctx, filepath.Join(t.TempDir(), "eval.db"), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	if err := s.IndexAll(ctx, ix); err != nil {
		t.Fatal(err)
	}
	rep, err := s.Score(ctx, ix)
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range []string{"generated", "go-handwritten", "js-handwritten", "all"} {
		for _, half := range []string{"dev", "heldout", "both"} {
			t.Logf("bridge %-15s %-8s %s", set, half, rep.Metrics[set+"/"+half])
		}
	}
}
