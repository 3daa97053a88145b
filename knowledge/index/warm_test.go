package index

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/agentgw/agentgw/internal/dbconn"
)

// warmCorpus is a corpus of 1,200 synthetic chunks and long queries of
// its common words.
func warmCorpus() ([]file, []string) {
	s := newSynth(7, 400)
	var files []file
	for f := range 300 {
		name := fmt.Sprintf("d%d/f%03d.go", f%3, f)
		files = append(files, file{name: name, hash: name, chunks: s.file(name, 4)})
	}
	return files, []string{s.longQuery(), s.longQuery(), s.query() + " " + s.vocab[0]}
}

// writeAll writes files through a Writer and flushes it, as an indexing
// run does.
func writeAll(t *testing.T, ix *Index, files ...file) {
	t.Helper()
	ctx := context.Background()
	w := ix.NewWriter("kb")
	for _, f := range files {
		if err := w.Replace(ctx, f.name, f.hash, f.chunks); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// sameHits reports whether two rankings are the same to the bit.
func sameHits(a, b []Hit) bool {
	return slices.EqualFunc(a, b, func(x, y Hit) bool { return x.Score == y.Score && x.Chunk == y.Chunk })
}

// TestWarmAfterWrite checks that the first search after an indexing run
// (a Writer flushed) reads no postings of the terms the warm-up cached:
// the common words' scores are cached when the version is written, not
// by the first search naming them, and rank as an uncached index does.
// Without the warm-up (warmer nil) the first search reads every term.
func TestWarmAfterWrite(t *testing.T) {
	files, queries := warmCorpus()
	eachBackend(t, func(t *testing.T, db string) {
		ix := openIndex(t, db, Options{})
		ix.cacheMinDF = 1                        // every term is common here
		ix.warmer = func(warm func()) { warm() } // in line: done when Flush returns
		var warms []warmStats
		ix.onWarm = func(st warmStats, err error) {
			if err != nil {
				t.Error(err)
			}
			warms = append(warms, st)
		}
		var st searchStats
		ix.onSearch = func(s searchStats) { st = s }
		plain := openIndex(t, db, Options{PostingsCacheBytes: -1})
		for i, step := range [][]file{files, {files[5], files[7]}} {
			if i == 1 { // a write that changes the base: new contents
				for j := range step {
					step[j].hash += "'"
					step[j].chunks = slices.Clone(step[j].chunks)
					step[j].chunks[0].Text += " " + queries[0]
				}
			}
			writeAll(t, ix, step...)
			if len(warms) != i+1 || warms[i].terms == 0 || warms[i].stopped {
				t.Errorf("write %d: warm-ups %+v; want one more, caching terms", i, warms)
			}
			for _, q := range queries {
				want := mustSearch(t, plain, Query{KB: []string{"kb"}, Text: q, TopK: 5})
				got := mustSearch(t, ix, Query{KB: []string{"kb"}, Text: q, TopK: 5})
				if !sameHits(got, want) {
					t.Errorf("write %d, query %q: the warmed index ranks\n%v\nan index without a cache\n%v", i, q, got, want)
				}
				if st.statements != 0 || st.rows != 0 || st.postings != 0 || st.cached == 0 {
					t.Errorf("write %d, query %q, first search: %+v; want no postings statement, no row, no posting decoded, every term from the cache",
						i, q, st)
				}
			}
		}
	})
}

// TestWarmWithinBound checks that a warm-up fills only the room left in
// the postings cache, evicting nothing a search cached, commonest terms
// first.
func TestWarmWithinBound(t *testing.T) {
	files, queries := warmCorpus()
	eachBackend(t, func(t *testing.T, db string) {
		ix := openIndex(t, db, Options{PostingsCacheBytes: 60000})
		ix.cacheMinDF = 1
		var pending func()
		ix.warmer = func(warm func()) { pending = warm }
		var got warmStats
		ix.onWarm = func(st warmStats, err error) {
			if err != nil {
				t.Error(err)
			}
			got = st
		}
		writeAll(t, ix, files...)
		mustSearch(t, ix, Query{KB: []string{"kb"}, Text: queries[2]}) // caches its terms
		c := ix.cache
		before := map[cacheKey]bool{}
		for k := range c.entries {
			before[k] = true
		}
		if len(before) == 0 || pending == nil {
			t.Fatalf("the search cached %d terms, a warm-up pending: %v", len(before), pending != nil)
		}
		pending()
		if got.terms == 0 {
			t.Fatalf("the warm-up cached nothing: %+v", got)
		}
		if c.size > c.max {
			t.Errorf("the cache holds %d bytes, over its bound %d", c.size, c.max)
		}
		for k := range before {
			if _, ok := c.entries[k]; !ok {
				t.Errorf("the warm-up evicted %q, which a search cached", k.term)
			}
		}
		// Commonest first: the commonest term that may be cached (its
		// scores estimated over a file each of its chunks, 300 at most)
		// is.
		var top string
		var topDF int64
		if err := ix.snapshot(context.Background(), func(c dbconn.Conn) error {
			return c.QueryRow(context.Background(), `SELECT term, df FROM kb_terms WHERE 8*(CASE WHEN df < 300 THEN df ELSE 300 END)+13*df <= ? ORDER BY df DESC, term LIMIT 1`,
				ix.cache.max/8).Scan(&top, &topDF)
		}); err != nil {
			t.Fatal(err)
		}
		found := false
		for k := range c.entries {
			found = found || k.term == top
		}
		if !found {
			t.Errorf("the commonest term the cache may hold, %q (df %d), was not warmed", top, topDF)
		}
	})
}

// TestWarmRacingWrite checks that a write committed while a warm-up
// reads (another process's, so this Index learns of it only from the
// next search) leaves no stale score: the scores the warm-up cached are
// of the version it read, dropped when a search sees the new one, which
// ranks as an uncached index does.
func TestWarmRacingWrite(t *testing.T) {
	files, queries := warmCorpus()
	eachBackend(t, func(t *testing.T, db string) {
		ix := openIndex(t, db, Options{})
		ix.cacheMinDF = 1
		ix.warmer = func(warm func()) { warm() }
		other := openIndex(t, db, Options{PostingsCacheBytes: -1})
		plain := openIndex(t, db, Options{PostingsCacheBytes: -1})
		writeAll(t, ix, files...)
		var v0 int64
		for k := range ix.cache.entries {
			v0 = k.version
		}
		terms := 0
		ix.onWarmTerm = func() {
			if terms++; terms == 3 {
				f := files[9]
				f.hash += "'"
				f.chunks = slices.Clone(f.chunks)
				f.chunks[1].Text += " " + queries[1]
				mustReplace(t, other, "kb", f)
			}
		}
		var warmed warmStats
		ix.onWarm = func(st warmStats, err error) {
			if err != nil {
				t.Error(err)
			}
			warmed = st
		}
		// A second Flush of this Index, of a file changed: a new version
		// and its warm-up, during which the other process writes.
		f := files[3]
		f.hash += "'"
		f.chunks = slices.Clone(f.chunks)
		f.chunks[0].Text += " " + queries[0]
		writeAll(t, ix, f)
		raced := warmed
		if terms < 3 || raced.version <= v0 || raced.terms == 0 {
			t.Fatalf("the warm-up read %d terms, at version %d (first %d), cached %d: the write did not race it", terms, raced.version, v0, raced.terms)
		}
		ix.onWarmTerm = nil
		for _, q := range queries {
			want := mustSearch(t, plain, Query{KB: []string{"kb"}, Text: q, TopK: 5})
			got := mustSearch(t, ix, Query{KB: []string{"kb"}, Text: q, TopK: 5})
			if !sameHits(got, want) {
				t.Errorf("query %q after a write racing the warm-up: ranks\n%v\nan index without a cache\n%v", q, got, want)
			}
			for k := range ix.cache.entries {
				if k.version <= raced.version {
					t.Errorf("after a search of the new version, %q is cached at version %d, the raced warm-up's %d", k.term, k.version, raced.version)
				}
			}
		}
	})
}

// TestSearchRacingWarm checks that a search needing a term a warm-up is
// reading does not wait for it past maxShareWait (here the warm-up is
// stuck before its first term, the commonest, "error"): it reads the
// term itself and ranks as an uncached index does.
func TestSearchRacingWarm(t *testing.T) {
	files, _ := warmCorpus()
	eachBackend(t, func(t *testing.T, db string) {
		ix := openIndex(t, db, Options{})
		ix.cacheMinDF = 1
		plain := openIndex(t, db, Options{PostingsCacheBytes: -1})
		started, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		ix.onWarmTerm = func() {
			once.Do(func() { close(started) })
			<-release
		}
		done := make(chan struct{})
		ix.onWarm = func(warmStats, error) { close(done) }
		var st searchStats
		ix.onSearch = func(s searchStats) { st = s }
		writeAll(t, ix, files...)
		<-started
		for _, q := range []string{"error", "error func nil"} {
			want := mustSearch(t, plain, Query{KB: []string{"kb"}, Text: q, TopK: 5})
			got := mustSearch(t, ix, Query{KB: []string{"kb"}, Text: q, TopK: 5})
			if !sameHits(got, want) {
				t.Errorf("query %q racing the warm-up: ranks\n%v\nan index without a cache\n%v", q, got, want)
			}
			if st.rows == 0 {
				t.Errorf("query %q racing the warm-up: no row read (%+v): the test tests nothing", q, st)
			}
		}
		close(release)
		<-done
	})
}

// TestWarmAtStart checks Index.Warm, which an indexer calls as the
// gateway starts: a new Index on an indexed database (a restart) caches
// the common words' scores, so that its first search reads no postings;
// a version warmed already is not warmed again, and an unknown base is no
// error.
func TestWarmAtStart(t *testing.T) {
	ctx := context.Background()
	files, queries := warmCorpus()
	eachBackend(t, func(t *testing.T, db string) {
		mustReplace(t, openIndex(t, db, Options{}), "kb", files...)
		ix := openIndex(t, db, Options{}) // the gateway restarted
		ix.cacheMinDF = 1
		warms := 0
		ix.onWarm = func(warmStats, error) { warms++ }
		var st searchStats
		ix.onSearch = func(s searchStats) { st = s }
		for range 2 {
			if err := ix.Warm(ctx, "kb"); err != nil {
				t.Fatal(err)
			}
		}
		if err := ix.Warm(ctx, "nothing"); err != nil {
			t.Errorf("warming a base not indexed: %v", err)
		}
		if warms != 1 {
			t.Errorf("%d warm-ups; want 1", warms)
		}
		mustSearch(t, ix, Query{KB: []string{"kb"}, Text: queries[0], TopK: 5})
		if st.statements != 0 || st.rows != 0 || st.cached == 0 {
			t.Errorf("the first search after Warm: %+v; want no postings statement, no row, terms from the cache", st)
		}
	})
}

// TestWantedTerms checks the order in which a warm-up takes the terms
// searches are to read whole: the most recent first, only of its base
// and version, none cached or being read.
func TestWantedTerms(t *testing.T) {
	c := newPostingsCache(1 << 20)
	key := func(kb, v int64, term string) cacheKey { return cacheKey{kb: kb, version: v, term: term, w: 1} }
	for _, k := range []cacheKey{key(1, 2, "a"), key(1, 2, "b"), key(1, 1, "old"), key(2, 2, "other"), key(1, 2, "cached"), key(1, 2, "read"), key(1, 2, "c")} {
		c.want(k, termInfo{term: k.term})
	}
	c.put(key(1, 2, "cached"), &termScores{})
	if _, _, lead := c.getOrRead(key(1, 2, "read")); !lead {
		t.Fatal("a term no one reads: not led")
	}
	c.want(key(1, 2, "cached"), termInfo{term: "cached"}) // cached: not wanted again
	var got []string
	for {
		ti, ok := c.nextWanted(1, 2)
		if !ok {
			break
		}
		got = append(got, ti.term)
	}
	if want := []string{"c", "b", "a"}; !slices.Equal(got, want) {
		t.Errorf("wanted terms taken %v; want %v", got, want)
	}
}
