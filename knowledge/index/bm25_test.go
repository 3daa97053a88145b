package index

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// splitCamel splits a camelCase identifier into its lower-cased words.
func splitCamel(id string) []string {
	var out []string
	start := 0
	for i, r := range id {
		if i > 0 && unicode.IsUpper(r) {
			out = append(out, strings.ToLower(id[start:i]))
			start = i
		}
	}
	return append(out, strings.ToLower(id[start:]))
}

// TestLexicalMatchesExhaustiveBM25 checks the pruned top-k against BM25F
// computed here the plain way, over every chunk, for many queries and
// depths: same chunks, same order, same scores.
func TestLexicalMatchesExhaustiveBM25(t *testing.T) {
	for _, rk := range []Ranking{
		DefaultRanking(),
		{K1: 0.9, B: 0.4, Symbol: 3, Signature: 0, Doc: 2, Body: 1.3, Path: 0.5, Joined: 0.7, Private: 0.3},
		// With expansions (Options.Expand), counted in names only.
		{K1: 1.2, B: 0.5, Symbol: 5, Signature: 2, Doc: 2, Body: 1, Path: 1.5, Joined: 1, Expanded: 0.3, Private: 0.7},
		// Without the names clause, and with a heavier one and expansions.
		{K1: 1.2, B: 0.5, Symbol: 5, Signature: 2, Doc: 2, Body: 1, Path: 1.5, Joined: 1, Private: 0.7},
		{K1: 1.2, B: 0.5, Symbol: 5, Signature: 2, Doc: 2, Body: 1, Path: 1.5, Joined: 1, Expanded: 0.3, Names: 0.6, Private: 0.7},
	} {
		t.Run(fmt.Sprintf("%+v", rk), func(t *testing.T) { checkExhaustive(t, rk) })
	}
}

func checkExhaustive(t *testing.T, rk Ranking) {
	r := rk.params()
	s := newSynth(7, 400)
	// expand gives each word of the vocabulary three others (rarer and
	// commoner ones), some of them a query's own words.
	at := make(map[string]int, len(s.vocab))
	for i, w := range s.vocab {
		at[w] = i
	}
	expand := func(term string) []string {
		i, ok := at[term]
		if !ok {
			return nil
		}
		v := s.vocab
		return []string{v[(i+1)%len(v)], v[(i*7+3)%len(v)], v[i/2], v[(i+11)%len(v)]}
	}
	var files []file
	for f := range 60 {
		name := fmt.Sprintf("d%d/f%02d.go", f%3, f)
		cs := s.file(name, 1+f%7)
		for i := range cs {
			if (f+i)%2 == 0 { // exported: a public chunk
				c := &cs[i]
				exported := strings.ToUpper(c.Symbol[:1]) + c.Symbol[1:]
				c.Text = strings.ReplaceAll(c.Text, "func "+c.Symbol, "func "+exported)
				c.Symbol = exported
			}
		}
		files = append(files, file{name: name, hash: name, chunks: cs})
	}
	type doc struct {
		name    string
		ord     int
		tf      map[string]*[numFields]float64
		dl      int
		private bool
	}
	var docs []doc
	df := map[string]int{}
	tokens := 0
	for _, f := range files {
		for i, c := range f.chunks {
			d := doc{name: f.name, ord: i, tf: map[string]*[numFields]float64{}}
			texts, private := fieldTexts(c)
			d.private = private
			for field, text := range texts {
				for _, term := range Words(text) {
					if d.tf[term] == nil {
						d.tf[term] = new([numFields]float64)
					}
					d.tf[term][field]++
					d.dl++
				}
			}
			for term := range d.tf {
				df[term]++
			}
			tokens += d.dl
			docs = append(docs, d)
		}
	}
	n := float64(len(docs))
	avgdl := float64(tokens) / n
	exhaustive := func(q string, topK int) []string {
		var terms []string
		weight := map[string]float64{}
		names := map[string]bool{}
		qts := queryTerms(Words, q, r.joined)
		if r.expanded > 0 {
			qts = expandTerms(qts, expand, r.expanded)
		}
		for _, qt := range qts {
			if df[qt.term] > 0 {
				terms = append(terms, qt.term)
				weight[qt.term] = qt.weight
				names[qt.term] = qt.names
			}
		}
		slices.SortFunc(terms, func(a, b string) int {
			if c := cmp.Compare(df[a], df[b]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		type res struct {
			d     doc
			score float64
		}
		var rs []res
		var norm float64
		idf := func(term string) float64 {
			return math.Log(1 + (n-float64(df[term])+0.5)/(float64(df[term])+0.5))
		}
		ub := func(term string) float64 { return weight[term] * idf(term) * (r.k1 + 1) }
		for i := len(terms) - 1; i >= 0; i-- {
			u := ub(terms[i])
			if !names[terms[i]] {
				u += r.names * u
			}
			norm += u
		}
		for _, d := range docs {
			var sc float64
			hit := false
			for _, term := range terms {
				ftf := d.tf[term]
				if ftf == nil {
					continue
				}
				w := r.weights
				if names[term] {
					// An expansion: the symbol and signature only.
					tf := w[fieldSymbol]*ftf[fieldSymbol] + w[fieldSignature]*ftf[fieldSignature]
					if tf == 0 {
						continue
					}
					hit = true
					tsc := ub(term) * tf / (tf + r.k1)
					if d.private {
						tsc *= r.private
					}
					sc += tsc
					continue
				}
				hit = true
				// BM25F: the short fields unnormalized, the doc comment
				// and body by the chunk's length (summed in the order
				// the index does, so that the scores agree to the bit).
				tf := w[fieldSymbol]*ftf[fieldSymbol] + w[fieldSignature]*ftf[fieldSignature] + w[fieldPath]*ftf[fieldPath] +
					(w[fieldDoc]*ftf[fieldDoc]+w[fieldBody]*ftf[fieldBody])/(1-r.b+r.b*float64(d.dl)/avgdl)
				tsc := ub(term) * tf / (tf + r.k1)
				// The names clause, saturated apart (Ranking.Names).
				if ntf := w[fieldSymbol]*ftf[fieldSymbol] + w[fieldSignature]*ftf[fieldSignature]; r.names > 0 && ntf > 0 {
					tsc += r.names * ub(term) * ntf / (ntf + r.k1)
				}
				if d.private {
					tsc *= r.private
				}
				sc += tsc
			}
			if hit {
				rs = append(rs, res{d, sc})
			}
		}
		slices.SortFunc(rs, func(a, b res) int {
			if c := cmp.Compare(b.score, a.score); c != 0 {
				return c
			}
			if c := cmp.Compare(a.d.name, b.d.name); c != 0 {
				return c
			}
			return cmp.Compare(a.d.ord, b.d.ord)
		})
		var out []string
		for _, r := range rs[:min(topK, len(rs))] {
			out = append(out, fmt.Sprintf("%s:%d %.12f", r.d.name, r.d.ord, r.score/norm))
		}
		return out
	}
	var queries []string
	for i := range 120 {
		q := s.query()
		switch i % 10 {
		case 0:
			q += " " + s.vocab[0] + " " + s.vocab[1] // the commonest words
		case 5:
			q += " " + strings.Join(splitCamel(files[i%len(files)].chunks[0].Symbol), " ") // an identifier in words
		}
		queries = append(queries, q)
	}
	// Long queries of words most chunks hold, like bench/recall.go's (a
	// prompt and three lines of code): little can be pruned.
	for range 40 {
		queries = append(queries, s.longQuery())
	}
	eachBackend(t, func(t *testing.T, db string) {
		ix := openIndex(t, db, Options{Ranking: &rk, Expand: expand})
		mustReplace(t, ix, "kb", files...)
		// The same index, caching every term read whole (the default
		// caches only terms many chunks hold: none of this corpus's).
		caching := openIndex(t, db, Options{Ranking: &rk, Expand: expand})
		caching.cacheMinDF = 0
		cached := 0
		caching.onSearch = func(st searchStats) { cached += st.cached }
		for i, q := range queries {
			topK := []int{1, 3, 10, 40}[i%4]
			want := exhaustive(q, topK)
			for _, ix := range []*Index{ix, caching} {
				var got []string
				for _, h := range mustSearch(t, ix, Query{KB: []string{"kb"}, Text: q, TopK: topK}) {
					got = append(got, fmt.Sprintf("%s:%d %.12f", h.Chunk.FileName, (h.Chunk.StartLine-1)/10, h.Score))
				}
				if !slices.Equal(got, want) {
					t.Errorf("query %q top %d (caching from df %d):\n got %v\nwant %v", q, topK, ix.cacheMinDF, got, want)
				}
			}
		}
		if cached < len(queries) {
			t.Errorf("%d terms of %d searches came from the cache: the test does not test it", cached, len(queries))
		}
	})
}
