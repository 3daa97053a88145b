package index

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/knowledge/chunk"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/store/pgstore"
	"github.com/agentgw/agentgw/store/sqlitestore"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// backends are the databases every index test runs over. newDB makes a
// fresh database and returns its name: a SQLite file's path or a Postgres
// URL (a schema of its own).
var backends = []struct {
	name  string
	newDB func(t testing.TB) string
}{
	{"sqlite", func(t testing.TB) string { return filepath.Join(t.TempDir(), "kb.db") }},
	{"postgres", func(t testing.TB) string { return pgtest.Schema(t) }},
}

// eachBackend runs test over each backend, on a fresh database.
func eachBackend(t *testing.T, test func(t *testing.T, db string)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b.newDB(t)) })
	}
}

// openIndex opens an Index on database db through the gateway's store, as
// the gateway does, closed when the test ends.
func openIndex(t testing.TB, db string, opts Options) *Index {
	t.Helper()
	ctx := context.Background()
	var c io.Closer
	var st store.Store
	if store.IsPostgresURL(db) {
		p, err := pgstore.Open(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		c, st = p, p
	} else {
		s, err := sqlitestore.Open(db)
		if err != nil {
			t.Fatal(err)
		}
		c, st = s, s
	}
	t.Cleanup(func() { _ = c.Close() })
	ix, err := Open(ctx, st, opts)
	if err != nil {
		t.Fatal(err)
	}
	// The warm-ups started in the background end before the database
	// is closed (cleanups run last first).
	var warming sync.WaitGroup
	ix.warmer = func(warm func()) { warming.Go(warm) }
	t.Cleanup(warming.Wait)
	return ix
}

// file is a file of a test corpus, as chunks.
type file struct {
	name   string
	hash   string
	chunks []chunk.Chunk
}

// code and doc make a one-chunk-per-entry file: each entry is a symbol and
// its text, lines counted from 1, ten per chunk.
func mkFile(name, hash, stype string, entries ...[2]string) file {
	f := file{name: name, hash: hash}
	for i, e := range entries {
		f.chunks = append(f.chunks, chunk.Chunk{
			FileName: name, Source: "repo@main", SourceType: stype,
			StartLine: 10*i + 1, EndLine: 10*i + 10, Symbol: e[0], Text: e[1],
		})
	}
	return f
}

func mustReplace(t testing.TB, ix *Index, kb string, files ...file) {
	t.Helper()
	for _, f := range files {
		if _, err := ix.Replace(context.Background(), kb, f.name, f.hash, f.chunks); err != nil {
			t.Fatal(err)
		}
	}
}

func mustSearch(t testing.TB, ix *Index, q Query) []Hit {
	t.Helper()
	hits, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("Search(%+v): %v", q, err)
	}
	return hits
}

// checkInvariants fails t unless the derived tables agree with the
// postings: kb_terms' df is the number of chunks holding each term,
// kb_bases' counters sum the files', every chunk belongs to a file.
func checkInvariants(t testing.TB, ix *Index) {
	t.Helper()
	ctx := context.Background()
	df := map[[2]any]int64{}
	rs, err := ix.pool.Query(ctx, `SELECT kb_id, term, post FROM kb_postings`)
	if err != nil {
		t.Fatal(err)
	}
	for rs.Next() {
		var kb int64
		var term string
		var post []byte
		if err := rs.Scan(&kb, &term, &post); err != nil {
			t.Fatal(err)
		}
		if err := decodePostings(post, func(posting) { df[[2]any{kb, term}]++ }); err != nil {
			t.Fatal(err)
		}
	}
	_ = rs.Close()
	rs, err = ix.pool.Query(ctx, `SELECT kb_id, term, df FROM kb_terms`)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rs.Next() {
		var kb, d int64
		var term string
		if err := rs.Scan(&kb, &term, &d); err != nil {
			t.Fatal(err)
		}
		n++
		if df[[2]any{kb, term}] != d {
			t.Errorf("kb_terms says df(%d, %q) = %d, the postings %d", kb, term, d, df[[2]any{kb, term}])
		}
	}
	_ = rs.Close()
	if n != len(df) {
		t.Errorf("kb_terms has %d terms, the postings %d", n, len(df))
	}
	var bad int64
	err = ix.pool.QueryRow(ctx, `SELECT COUNT(*) FROM kb_bases b WHERE
	b.files <> (SELECT COUNT(*) FROM kb_files f WHERE f.kb_id = b.id) OR
	b.chunks <> (SELECT COUNT(*) FROM kb_chunks c JOIN kb_files f ON f.id = c.file_id WHERE f.kb_id = b.id) OR
	b.chunks <> (SELECT COALESCE(SUM(f.chunks), 0) FROM kb_files f WHERE f.kb_id = b.id) OR
	b.tokens <> (SELECT COALESCE(SUM(f.tokens), 0) FROM kb_files f WHERE f.kb_id = b.id)`).Scan(&bad)
	if err != nil {
		t.Fatal(err)
	}
	if bad != 0 {
		t.Errorf("%d knowledge bases have counters that disagree with their files", bad)
	}
	err = ix.pool.QueryRow(ctx, `SELECT COUNT(*) FROM kb_chunks c WHERE NOT EXISTS (SELECT 1 FROM kb_files f WHERE f.id = c.file_id)`).Scan(&bad)
	if err != nil {
		t.Fatal(err)
	}
	if bad != 0 {
		t.Errorf("%d chunks belong to no file", bad)
	}
}
