package index

import (
	"context"
	"testing"
)

func TestHybrid(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		emb := HashEmbedder{Dim: 256}
		ix := openIndex(t, db, Options{Embedder: emb})
		mustReplace(t, ix, "kb", testCorpus()...)
		lexOnly := openIndex(t, db, Options{})
		q := Query{KB: []string{"kb"}, Text: "scheduling"}

		// No chunk has the word: BM25 finds nothing, the vectors find the
		// one about schedules (shared trigrams).
		if hits := mustSearch(t, lexOnly, q); len(hits) != 0 {
			t.Errorf("lexical hits for a word no chunk has: %+v", hits)
		}
		hits := mustSearch(t, ix, q)
		if len(hits) == 0 || loc(hits[0]) != "README.md#Schedules" {
			t.Fatalf("hybrid hits %+v, want README.md#Schedules first", hits)
		}
		for i, h := range hits {
			if h.Score <= 0 || h.Score > 1 || (i > 0 && h.Score > hits[i-1].Score) {
				t.Errorf("hit %d: score %v", i, h.Score)
			}
		}

		// Over the brute-force limit, vectors only reorder BM25's
		// candidates: none here.
		capped := openIndex(t, db, Options{Embedder: emb, BruteForceLimit: 5})
		if hits := mustSearch(t, capped, q); len(hits) != 0 {
			t.Errorf("capped hybrid hits %+v, want none", hits)
		}

		// Both rankings agree on an exact identifier: first in both is
		// the best possible fused score.
		hits = mustSearch(t, ix, Query{KB: []string{"kb"}, Text: "parseHTTPRequest decodes the JSON body"})
		if len(hits) == 0 || loc(hits[0]) != "server/handler.go#parseHTTPRequest" || hits[0].Score != 1 {
			t.Errorf("hits %+v, want parseHTTPRequest first with score 1", hits)
		}
		hits = mustSearch(t, capped, Query{KB: []string{"kb"}, Text: "parseHTTPRequest", SourceType: "doc"})
		for _, h := range hits {
			if h.Chunk.SourceType != "doc" {
				t.Errorf("capped hybrid: hit %s of type %s", loc(h), h.Chunk.SourceType)
			}
		}
		hits = mustSearch(t, ix, Query{KB: []string{"kb"}, Text: "scheduling", PathGlobs: []string{"server/**"}})
		for _, h := range hits {
			if h.Chunk.FileName[:7] != "server/" {
				t.Errorf("hybrid: hit %s outside server/", loc(h))
			}
		}

		// A base indexed without vectors falls back to BM25.
		mustReplace(t, lexOnly, "novec", testCorpus()...)
		a := mustSearch(t, ix, Query{KB: []string{"novec"}, Text: "sqlite store"})
		b := mustSearch(t, lexOnly, Query{KB: []string{"novec"}, Text: "sqlite store"})
		if len(a) == 0 || len(a) != len(b) || a[0] != b[0] {
			t.Errorf("without vectors, hybrid %+v differs from lexical %+v", a, b)
		}

		// Vectors of another dimension are ignored.
		other := openIndex(t, db, Options{Embedder: HashEmbedder{Dim: 8}})
		if hits := mustSearch(t, other, q); len(hits) != 0 {
			t.Errorf("vectors of another dimension matched: %+v", hits)
		}
	})
}

// FuzzSearchText runs arbitrary query text against a small index: it never
// errors, never panics, and its hits are well formed. The text reaches the
// database only as bound parameters of tokenized terms.
func FuzzSearchText(f *testing.F) {
	for _, s := range []string{
		"parseHTTPRequest", `"*" OR NEAR(a b) -c ^d`, "'; DROP TABLE kb_chunks; --", "kb_terms.df ? $1 ?", "\x00\xff", "(((", "a:b* col:*",
		"ÜberGroß 日本語 emoji 🙂", "",
	} {
		f.Add(s, 3, "")
	}
	ix := openIndex(f, backends[0].newDB(f), Options{Embedder: HashEmbedder{Dim: 16}})
	mustReplace(f, ix, "kb", testCorpus()...)
	f.Fuzz(func(t *testing.T, text string, topK int, glob string) {
		q := Query{KB: []string{"kb", text}, Text: text, TopK: topK}
		if glob != "" {
			if _, err := compileGlob(glob); err == nil {
				q.PathGlobs = []string{glob}
			}
		}
		hits, err := ix.Search(context.Background(), q)
		if err != nil {
			t.Fatalf("Search(%q): %v", text, err)
		}
		if len(hits) > max(min(topK, MaxTopK), 0) && !(topK <= 0 && len(hits) <= DefaultTopK) {
			t.Errorf("%d hits for topK %d", len(hits), topK)
		}
		for _, h := range hits {
			if h.Score < 0 || h.Score > 1 || h.Chunk.FileName == "" {
				t.Errorf("bad hit %+v", h)
			}
		}
	})
}
