package index

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/knowledge/chunk"
)

// fileIDs are the row ids of the indexed files, by name: a file rewritten
// gets a new one.
func fileIDs(t *testing.T, ix *Index) map[string]int64 {
	t.Helper()
	rs, err := ix.pool.Query(context.Background(), `SELECT name, id FROM kb_files`)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	out := map[string]int64{}
	for rs.Next() {
		var name string
		var id int64
		if err := rs.Scan(&name, &id); err != nil {
			t.Fatal(err)
		}
		out[name] = id
	}
	return out
}

func TestIncrementalReindex(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		ix := openIndex(t, db, Options{Now: func() time.Time { return clock }})
		corpus := testCorpus()
		mustReplace(t, ix, "kb", corpus...)
		if err := ix.SetMeta(ctx, "kb", "c1"); err != nil {
			t.Fatal(err)
		}
		before := fileIDs(t, ix)
		st, err := ix.Stats(ctx, "kb")
		if err != nil {
			t.Fatal(err)
		}
		if st.Files != 5 || st.Chunks != 10 || st.LastCommit != "c1" || !st.Updated.Equal(clock) || st.Tokens == 0 {
			t.Errorf("stats %+v", st)
		}

		// The same commit again: nothing is rewritten.
		for _, f := range corpus {
			changed, err := ix.Replace(ctx, "kb", f.name, f.hash, f.chunks)
			if err != nil || changed {
				t.Errorf("Replace(%s) unchanged = %v, %v; want false, nil", f.name, changed, err)
			}
		}
		if after := fileIDs(t, ix); !maps.Equal(before, after) {
			t.Errorf("an unchanged commit rewrote files: %v -> %v", before, after)
		}

		// A commit changes store/sqlite.go: only it is rewritten.
		hashes, err := ix.FileHashes(ctx, "kb")
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"server/handler.go": "h1", "server/routes.go": "r1", "store/sqlite.go": "s1", "docs/http.md": "d1", "README.md": "m1"}
		if !maps.Equal(hashes, want) {
			t.Errorf("FileHashes %v, want %v", hashes, want)
		}
		clock = clock.Add(time.Hour)
		changedFile := mkFile("store/sqlite.go", "s2", chunk.TypeCode,
			[2]string{"OpenSQLite", "// OpenSQLite opens the SQLite database at path, in WAL mode.\nfunc OpenSQLite(path string) (*SQLite, error)"},
			[2]string{"Vacuum", "// Vacuum compacts the database file.\nfunc (s *SQLite) Vacuum() error"},
			[2]string{"Checkpoint", "// Checkpoint truncates the write-ahead log.\nfunc (s *SQLite) Checkpoint() error"},
		)
		changed, err := ix.Replace(ctx, "kb", changedFile.name, changedFile.hash, changedFile.chunks)
		if err != nil || !changed {
			t.Fatalf("Replace(changed) = %v, %v", changed, err)
		}
		after := fileIDs(t, ix)
		for name, id := range before {
			if rewritten := after[name] != id; rewritten != (name == "store/sqlite.go") {
				t.Errorf("%s: id %d -> %d", name, id, after[name])
			}
		}
		checkInvariants(t, ix)
		if err := ix.Optimize(ctx); err != nil {
			t.Fatal(err)
		}
		if hits := mustSearch(t, ix, Query{KB: []string{"kb"}, Text: "expired rows sweep"}); len(hits) > 0 && hits[0].Chunk.Symbol == "Sweep" {
			t.Errorf("the old chunk Sweep is still found: %+v", hits[0])
		}
		if hits := mustSearch(t, ix, Query{KB: []string{"kb"}, Text: "Vacuum"}); len(hits) == 0 || hits[0].Chunk.Symbol != "Vacuum" {
			t.Errorf("the new chunk Vacuum is not found first: %+v", hits)
		}
		st, _ = ix.Stats(ctx, "kb")
		if st.Files != 5 || st.Chunks != 11 || !st.Updated.Equal(clock) {
			t.Errorf("stats after the change %+v", st)
		}

		// A commit deletes docs/http.md: its chunks go.
		if err := ix.Delete(ctx, "kb", "docs/http.md"); err != nil {
			t.Fatal(err)
		}
		if err := ix.Delete(ctx, "kb", "docs/http.md"); err != nil {
			t.Errorf("deleting a file twice: %v", err)
		}
		if err := ix.Delete(ctx, "nokb", "x"); err != nil {
			t.Errorf("deleting from an unknown base: %v", err)
		}
		for _, h := range mustSearch(t, ix, Query{KB: []string{"kb"}, Text: "requests errors gateway stream", TopK: 100}) {
			if h.Chunk.FileName == "docs/http.md" {
				t.Errorf("a chunk of the deleted file is found: %+v", h)
			}
		}
		st, _ = ix.Stats(ctx, "kb")
		if st.Files != 4 || st.Chunks != 9 {
			t.Errorf("stats after the delete %+v", st)
		}
		checkInvariants(t, ix)

		// A file emptied keeps its hash, with no chunks.
		if _, err := ix.Replace(ctx, "kb", "README.md", "m2", nil); err != nil {
			t.Fatal(err)
		}
		if changed, _ := ix.Replace(ctx, "kb", "README.md", "m2", nil); changed {
			t.Error("an empty file with an unchanged hash was rewritten")
		}
		checkInvariants(t, ix)

		// An empty hash always replaces.
		for range 2 {
			if changed, err := ix.Replace(ctx, "kb", "x.go", "", corpus[1].chunks); err != nil || !changed {
				t.Errorf("Replace with no hash = %v, %v", changed, err)
			}
		}
		checkInvariants(t, ix)

		// Dropping the base takes everything.
		if err := ix.DropKB(ctx, "kb"); err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, table := range []string{"kb_bases", "kb_files", "kb_chunks", "kb_terms", "kb_postings"} {
			if err := ix.pool.QueryRow(ctx, `SELECT COUNT(*) FROM `+table).Scan(&n); err != nil || n != 0 {
				t.Errorf("%s has %d rows after DropKB (%v)", table, n, err)
			}
		}
		if st, err := ix.Stats(ctx, "kb"); err != nil || st != (Stats{KB: "kb"}) {
			t.Errorf("stats of a dropped base: %+v, %v", st, err)
		}
	})
}

func TestListAndStats(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		ix := openIndex(t, db, Options{})
		if l, err := ix.List(ctx); err != nil || len(l) != 0 {
			t.Errorf("List of an empty index: %v, %v", l, err)
		}
		mustReplace(t, ix, "b", testCorpus()[0])
		if err := ix.SetMeta(ctx, "a", "abc"); err != nil {
			t.Fatal(err)
		}
		l, err := ix.List(ctx)
		if err != nil || len(l) != 2 || l[0].KB != "a" || l[0].LastCommit != "abc" || l[1].KB != "b" || l[1].Chunks != 3 {
			t.Errorf("List: %+v, %v", l, err)
		}
	})
}

func TestReopenKeepsTheIndex(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ix := openIndex(t, db, Options{})
		mustReplace(t, ix, "kb", testCorpus()...)
		// A second process, or a replica, opens the same database: the
		// migration finds its steps applied and the index is shared.
		var wg sync.WaitGroup
		others := make([]*Index, 3)
		for i := range others {
			wg.Go(func() { others[i] = openIndex(t, db, Options{}) })
		}
		wg.Wait()
		for _, o := range others {
			if hits := mustSearch(t, o, Query{KB: []string{"kb"}, Text: "OpenSQLite"}); len(hits) == 0 {
				t.Error("another process does not see the index")
			}
		}
	})
}

// TestConcurrentIndexAndSearch re-indexes files while searches run, from
// two Index values on one database (two replicas); run it with -race.
func TestConcurrentIndexAndSearch(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		a := openIndex(t, db, Options{Embedder: HashEmbedder{Dim: 32}})
		b := openIndex(t, db, Options{Embedder: HashEmbedder{Dim: 32}})
		a.cacheMinDF, b.cacheMinDF = 0, 0 // every term in the postings cache
		mustReplace(t, a, "kb", testCorpus()...)
		var wg sync.WaitGroup
		errs := make(chan error, 100)
		for w, ix := range []*Index{a, b} {
			wg.Go(func() {
				for i := range 15 {
					f := mkFile(fmt.Sprintf("gen/w%d_%d.go", w, i%4), fmt.Sprint(i), chunk.TypeCode,
						[2]string{"Gen", fmt.Sprintf("func Gen%d() { return sqlite store %d }", i, i)},
						[2]string{"More", "more words about the store"})
					if _, err := ix.Replace(ctx, "kb", f.name, f.hash, f.chunks); err != nil {
						errs <- err
						return
					}
					if i%5 == 4 {
						if err := ix.Delete(ctx, "kb", f.name); err != nil {
							errs <- err
							return
						}
					}
				}
			})
			wg.Go(func() {
				for range 30 {
					hits, err := ix.Search(ctx, Query{KB: []string{"kb"}, Text: "sqlite store words"})
					if err != nil {
						errs <- err
						return
					}
					for _, h := range hits {
						if h.Chunk.FileName == "" || h.Score < 0 || h.Score > 1 {
							errs <- fmt.Errorf("bad hit %+v", h)
							return
						}
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		checkInvariants(t, a)
	})
}

// TestLargeFilePostingsAreCut: a term held by every chunk of a large file
// (net/http's h2_bundle.go has some 400) has more postings there than a
// PostgreSQL btree entry may hold; they are cut into rows of at most
// maxPostBytes, read back whole, and deleted with the file.
func TestLargeFilePostingsAreCut(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		ix := openIndex(t, db, Options{})
		var entries [][2]string
		for i := range 1500 {
			entries = append(entries, [2]string{fmt.Sprintf("Handler%d", i), fmt.Sprintf("common words here, number%d", i)})
		}
		big := mkFile("h2_bundle.go", "v1", chunk.TypeCode, entries...)
		mustReplace(t, ix, "kb", big, mkFile("small.go", "v1", chunk.TypeCode, [2]string{"Small", "common but short"}))
		checkInvariants(t, ix)
		var rows, maxLen int64
		err := ix.pool.QueryRow(ctx, `SELECT COUNT(*), MAX(LENGTH(post)) FROM kb_postings WHERE term = 'common'`).Scan(&rows, &maxLen)
		if err != nil {
			t.Fatal(err)
		}
		if rows < 3 || maxLen > maxPostBytes {
			t.Errorf("the postings of 'common': %d rows, the longest %d bytes; want them cut in parts of at most %d", rows, maxLen, maxPostBytes)
		}
		hits := mustSearch(t, ix, Query{KB: []string{"kb"}, Text: "common number1499", TopK: 1})
		if len(hits) != 1 || hits[0].Chunk.Symbol != "Handler1499" {
			t.Errorf("hits %+v, want Handler1499's chunk", hits)
		}
		if got := len(mustSearch(t, ix, Query{KB: []string{"kb"}, Text: "common", TopK: MaxTopK})); got != MaxTopK {
			t.Errorf("%d hits for a word of every chunk, want %d", got, MaxTopK)
		}
		if err := ix.Delete(ctx, "kb", "h2_bundle.go"); err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, ix)
		if err := ix.pool.QueryRow(ctx, `SELECT COUNT(*) FROM kb_postings WHERE term = 'common'`).Scan(&rows); err != nil || rows != 1 {
			t.Errorf("after deleting the file: %d rows of 'common' (%v), want small.go's 1", rows, err)
		}
	})
}

// TestMigrationsReindex: an index built before version 3 (comments
// weighed as doc, more stop words) or before version 4 (the doc's first
// sentence counted twice) is emptied, its commits forgotten, so that the
// indexer rebuilds it; the knowledge bases stay.
func TestMigrationsReindex(t *testing.T) {
	for _, version := range []int{3, 4} {
		t.Run(fmt.Sprint(version), func(t *testing.T) {
			eachBackend(t, func(t *testing.T, db string) {
				ctx := context.Background()
				ix := openIndex(t, db, Options{})
				mustReplace(t, ix, "kb", testCorpus()...)
				if err := ix.SetMeta(ctx, "kb", "abc"); err != nil {
					t.Fatal(err)
				}
				// As a database migrated to the version before does not record it
				// (the later migrations, which only add columns, are recorded).
				if _, err := ix.pool.Exec(ctx, `DELETE FROM kb_migrations WHERE version = ?`, version); err != nil {
					t.Fatal(err)
				}
				again := openIndex(t, db, Options{})
				st, err := again.Stats(ctx, "kb")
				if err != nil {
					t.Fatal(err)
				}
				if st.KB != "kb" || st.Files != 0 || st.Chunks != 0 || st.Tokens != 0 || st.LastCommit != "" {
					t.Errorf("after migration %d: %+v, want kb emptied and its commit forgotten", version, st)
				}
				if hs, err := again.FileHashes(ctx, "kb"); err != nil || len(hs) != 0 {
					t.Errorf("file hashes after migration %d: %v, %v", version, hs, err)
				}
				var terms, postings int
				if err := again.pool.QueryRow(ctx, `SELECT (SELECT COUNT(*) FROM kb_terms), (SELECT COUNT(*) FROM kb_postings)`).Scan(&terms, &postings); err != nil || terms != 0 || postings != 0 {
					t.Errorf("terms %d, postings %d (%v), want none", terms, postings, err)
				}
			})
		})
	}
}
