package index

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/knowledge/chunk"
)

// TestWriterBounds writes the same files through Writers of different
// batch bounds and through Replace, and compares the tables: how files are
// batched changes no row.
func TestWriterBounds(t *testing.T) {
	gen, _ := genGoCorpus(900)
	split := func(t *testing.T, f genFile) []chunk.Chunk {
		cs, err := chunk.Split(f.name, "gen", f.text, chunk.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) { testWriterBounds(t, be.newDB, gen, split) })
	}
}

func testWriterBounds(t *testing.T, newDB func(testing.TB) string, gen []genFile, split func(*testing.T, genFile) []chunk.Chunk) {
	{
		ctx := context.Background()
		opts := Options{Tokenizer: chunk.Tokens, Now: func() time.Time { return time.Unix(0, 1) }}
		ref := openIndex(t, newDB(t), opts)
		for _, f := range gen {
			mustReplaceChunks(t, ref, "gen", f.name, "h", split(t, f))
		}
		want := dumpTables(t, ref)
		for _, tc := range []struct {
			name                      string
			maxRows, maxChunks, files int
		}{
			{"a file a batch", 1 << 30, 1 << 30, 1},
			{"two files a batch", 1 << 30, 1 << 30, 2},
			{"by postings rows", 5000, 1 << 30, 1 << 30},
			{"by chunks", 1 << 30, 250, 1 << 30},
			{"one batch", 1 << 30, 1 << 30, 1 << 30},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ix := openIndex(t, newDB(t), opts)
				w := ix.NewWriter("gen")
				w.maxRows, w.maxChunks, w.maxFiles = tc.maxRows, tc.maxChunks, tc.files
				for _, f := range gen {
					if err := w.Replace(ctx, f.name, "h", split(t, f)); err != nil {
						t.Fatal(err)
					}
				}
				if err := w.Flush(ctx); err != nil {
					t.Fatal(err)
				}
				if w.Written() != len(gen) {
					t.Errorf("Written() = %d, want %d", w.Written(), len(gen))
				}
				if got := dumpTables(t, ix); got != want {
					t.Errorf("tables\n%swant (Replace)\n%s", got, want)
				}
				checkInvariants(t, ix)
			})
		}
	}
}

// TestWriterFailureSticks: a batch that fails to be written (here, its
// context is cancelled) fails Flush and every call after it, and writes
// none of its files. (The calls between may fail or not: the batch is
// written meanwhile.)
func TestWriterFailureSticks(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ix := openIndex(t, db, Options{})
		w := ix.NewWriter("kb")
		w.maxFiles = 2
		ctx := context.Background()
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		files := testCorpus()
		if err := w.Replace(ctx, files[0].name, files[0].hash, files[0].chunks); err != nil {
			t.Fatal(err)
		}
		// The batch is full: written with the cancelled context.
		if err := w.Replace(cancelled, files[1].name, files[1].hash, files[1].chunks); err != nil {
			t.Fatalf("Replace filling the batch: %v (its write fails later)", err)
		}
		if err := w.Replace(ctx, files[2].name, files[2].hash, files[2].chunks); err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("Replace after the failed batch: %v, want nil or context.Canceled", err)
		}
		if err := w.Flush(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("Flush after the failed batch: %v, want context.Canceled", err)
		}
		if err := w.Replace(ctx, files[3].name, files[3].hash, files[3].chunks); !errors.Is(err, context.Canceled) {
			t.Errorf("Replace after the failed Flush: %v, want context.Canceled", err)
		}
		if err := w.Delete(ctx, files[0].name); !errors.Is(err, context.Canceled) {
			t.Errorf("Delete after the failed Flush: %v, want context.Canceled", err)
		}
		if st, err := ix.Stats(ctx, "kb"); err != nil || st.Files != 0 || w.Written() != 0 {
			t.Errorf("Stats %+v, %v, Written %d: want nothing written", st, err, w.Written())
		}
	})
}

// TestWritersOfReplicasAndSearches: two replicas' Writers index the same
// knowledge base in small batches while both search it; run it with
// -race. The derived tables agree with the postings at the end.
func TestWritersOfReplicasAndSearches(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		ctx := context.Background()
		a := openIndex(t, db, Options{Embedder: HashEmbedder{Dim: 32}})
		b := openIndex(t, db, Options{Embedder: HashEmbedder{Dim: 32}})
		mustReplace(t, a, "kb", testCorpus()...)
		var wg sync.WaitGroup
		errs := make(chan error, 100)
		for r, ix := range []*Index{a, b} {
			wg.Go(func() {
				w := ix.NewWriter("kb")
				w.maxFiles = 3
				for i := range 20 {
					f := mkFile(fmt.Sprintf("gen/w%d_%d.go", r, i%6), fmt.Sprint(i), chunk.TypeCode,
						[2]string{"Gen", fmt.Sprintf("func Gen%d() { return sqlite store %d }", i, i)},
						[2]string{"More", "more words about the store"})
					err := w.Replace(ctx, f.name, f.hash, f.chunks)
					if err == nil && i%5 == 4 {
						err = w.Delete(ctx, f.name)
					}
					if err != nil {
						errs <- err
						return
					}
				}
				if err := w.Flush(ctx); err != nil {
					errs <- err
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

// TestWriterBoundsByDatabase: a Writer's batches are three times larger
// on PostgreSQL, where a batch's transaction blocks no writer but its
// knowledge base's.
func TestWriterBoundsByDatabase(t *testing.T) {
	want := map[string][3]int{
		"sqlite":   {batchPostings, batchChunks, batchFiles},
		"postgres": {3 * batchPostings, 3 * batchChunks, 3 * batchFiles},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			w := openIndex(t, b.newDB(t), Options{}).NewWriter("kb")
			if got := [3]int{w.maxRows, w.maxChunks, w.maxFiles}; got != want[b.name] {
				t.Errorf("bounds (rows, chunks, files) = %v, want %v", got, want[b.name])
			}
		})
	}
}
