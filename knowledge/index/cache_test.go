package index

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/agentgw/agentgw/internal/dbconn"
	"github.com/agentgw/agentgw/knowledge/chunk"
)

// TestPostingsCacheFollowsWrites checks that a search never ranks by
// postings cached before a write, made by this index or by another
// process sharing the database (a second Index on it): each search of
// the caching index must rank as an index without a cache does.
func TestPostingsCacheFollowsWrites(t *testing.T) {
	ctx := context.Background()
	doc := func(name string, n int, body string) file {
		var es [][2]string
		for i := range n {
			es = append(es, [2]string{fmt.Sprintf("fn%d", i), fmt.Sprintf("func fn%d() { %s }", i, body)})
		}
		return mkFile(name, name+body, chunk.TypeCode, es...)
	}
	eachBackend(t, func(t *testing.T, db string) {
		caching := openIndex(t, db, Options{})
		caching.cacheMinDF = 0
		cached := 0
		caching.onSearch = func(st searchStats) { cached += st.cached }
		other := openIndex(t, db, Options{PostingsCacheBytes: -1}) // another process
		plain := openIndex(t, db, Options{PostingsCacheBytes: -1})
		search := func(ix *Index, q string) []string {
			var out []string
			for _, h := range mustSearch(t, ix, Query{KB: []string{"kb"}, Text: q, TopK: 5}) {
				out = append(out, fmt.Sprintf("%s:%d %.12f", h.Chunk.FileName, h.Chunk.StartLine, h.Score))
			}
			return out
		}
		const q = "alpha beta"
		mustReplace(t, caching, "kb", doc("a.go", 3, "alpha"), doc("b.go", 3, "beta beta"), doc("c.go", 2, "gamma"))
		steps := []struct {
			name  string
			write func()
		}{
			{"no write", func() {}},
			{"this index replaces a file", func() { mustReplace(t, caching, "kb", doc("c.go", 2, "alpha alpha alpha beta")) }},
			{"another process replaces a file", func() { mustReplace(t, other, "kb", doc("a.go", 4, "beta alpha beta")) }},
			{"another process deletes a file", func() {
				if err := other.Delete(ctx, "kb", "c.go"); err != nil {
					t.Fatal(err)
				}
			}},
			{"another process drops and rebuilds the base", func() {
				if err := other.DropKB(ctx, "kb"); err != nil {
					t.Fatal(err)
				}
				mustReplace(t, other, "kb", doc("d.go", 2, "alpha beta beta"), doc("b.go", 3, "beta"))
			}},
			// The base's counters unchanged: as many chunks and terms.
			{"another process replaces a file with one of its size", func() { mustReplace(t, other, "kb", doc("b.go", 3, "alpha")) }},
		}
		prev := search(caching, q)
		for _, st := range steps {
			st.write()
			before := cached
			got, want := search(caching, q), search(plain, q)
			if !slices.Equal(got, want) {
				t.Errorf("after %s: the caching index ranks\n%v\nan index without a cache\n%v", st.name, got, want)
			}
			if st.name == "no write" {
				if cached == before {
					t.Errorf("a search repeated with no write read no term from the cache")
				}
			} else if slices.Equal(want, prev) {
				t.Errorf("after %s the ranking did not change: the step tests nothing", st.name)
			}
			prev = want
		}
	})
}

// TestCachedTermsReadNothing checks that a search naming only terms the
// postings cache holds runs no postings statement and decodes no
// posting: their scores are cached, not their rows. On PostgreSQL a
// common term is cached even when it was first looked up only for the
// candidates left (pruning), so that a long query of common words
// repeated costs no round trip: the first search reads every term in one
// statement, the repeated one none. On SQLite, where a statement is a
// call, a common term is cached when a search reads it whole, and read
// for the candidates only otherwise (as without a cache): the repeated
// search reads only those rows.
func TestCachedTermsReadNothing(t *testing.T) {
	// Enough chunks that the common words' postings are more than the
	// rarest terms' prefetch (prefetchPostings): read term by term by
	// an index without a cache.
	s := newSynth(7, 400)
	var files []file
	for f := range 300 {
		name := fmt.Sprintf("d%d/f%03d.go", f%3, f)
		files = append(files, file{name: name, hash: name, chunks: s.file(name, 4)})
	}
	queries := []string{s.longQuery(), s.longQuery(), s.longQuery()}
	eachBackend(t, func(t *testing.T, db string) {
		ix := openIndex(t, db, Options{})
		mustReplace(t, ix, "kb", files...)
		pg := ix.dialect.pg
		ix.cacheMinDF = 0 // every term cached
		ix.warmer = nil   // by the searches only
		var st searchStats
		ix.onSearch = func(s searchStats) { st = s }
		plain := openIndex(t, db, Options{PostingsCacheBytes: -1})
		var plainSt searchStats
		plain.onSearch = func(s searchStats) { plainSt = s }
		for _, q := range queries {
			want := mustSearch(t, plain, Query{KB: []string{"kb"}, Text: q, TopK: 3})
			if plainSt.statements < 2 {
				t.Errorf("query %q: an index without a cache ran %d postings statements: the test does not test pruning", q, plainSt.statements)
			}
			var first searchStats
			for i, stage := range []string{"first", "repeated"} {
				got := mustSearch(t, ix, Query{KB: []string{"kb"}, Text: q, TopK: 3})
				if !slices.EqualFunc(got, want, func(a, b Hit) bool { return a.Score == b.Score && a.Chunk == b.Chunk }) {
					t.Errorf("query %q, %s search: the caching index ranks\n%v\nan index without a cache\n%v", q, stage, got, want)
				}
				if !pg {
					if i == 0 {
						first = st
					} else if st.cached == 0 || st.rows*10 > first.rows {
						t.Errorf("query %q, repeated search: %+v, first %+v; want terms from the cache, a tenth of the rows at most", q, st, first)
					}
					continue
				}
				wantSt := searchStats{statements: 1, cached: 0}
				if i == 1 {
					wantSt = searchStats{cached: st.cached} // none read, none decoded
				}
				if st.statements != wantSt.statements || (i == 1 && (st.rows != 0 || st.postings != 0 || st.cached == 0)) {
					t.Errorf("query %q, %s search: %+v; want %d postings statements (and, repeated, no row read, no posting decoded, terms from the cache)",
						q, stage, st, wantSt.statements)
				}
			}
		}
	})
}

// TestStaleLayoutFallsBack checks that a search whose file layout lacks
// a file of a term's postings (a layout not of the postings' version)
// ranks as an index without a cache does: such a term is not cached and
// its rows are read again.
func TestStaleLayoutFallsBack(t *testing.T) {
	ctx := context.Background()
	s := newSynth(7, 400)
	var files []file
	for f := range 30 {
		name := fmt.Sprintf("d%d/f%02d.go", f%3, f)
		files = append(files, file{name: name, hash: name, chunks: s.file(name, 4)})
	}
	q := s.longQuery()
	eachBackend(t, func(t *testing.T, db string) {
		ix := openIndex(t, db, Options{})
		mustReplace(t, ix, "kb", files...)
		ix.cacheMinDF = 0
		plain := openIndex(t, db, Options{PostingsCacheBytes: -1})
		var kb, version int64
		if err := ix.snapshot(ctx, func(c dbconn.Conn) error {
			return c.QueryRow(ctx, `SELECT id, version FROM kb_bases WHERE name = ?`, "kb").Scan(&kb, &version)
		}); err != nil {
			t.Fatal(err)
		}
		// The layout of the base at its version, holding one file only.
		var one int64
		if err := ix.snapshot(ctx, func(c dbconn.Conn) error {
			return c.QueryRow(ctx, `SELECT MIN(id) FROM kb_files WHERE kb_id = ?`, kb).Scan(&one)
		}); err != nil {
			t.Fatal(err)
		}
		ix.cache.putLayout(newFileLayout(kb, version, []int64{one}, []int32{4}))
		var st searchStats
		ix.onSearch = func(s searchStats) { st = s }
		want := mustSearch(t, plain, Query{KB: []string{"kb"}, Text: q, TopK: 5})
		for _, stage := range []string{"first", "repeated"} {
			got := mustSearch(t, ix, Query{KB: []string{"kb"}, Text: q, TopK: 5})
			if !slices.EqualFunc(got, want, func(a, b Hit) bool { return a.Score == b.Score && a.Chunk == b.Chunk }) {
				t.Errorf("%s search with a stale layout: ranks\n%v\nan index without a cache\n%v", stage, got, want)
			}
			if st.rows == 0 {
				t.Errorf("%s search with a stale layout: no row read: the test tests nothing", stage)
			}
		}
	})
}
