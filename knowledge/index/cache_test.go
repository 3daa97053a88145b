package index

import (
	"context"
	"fmt"
	"slices"
	"testing"

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
