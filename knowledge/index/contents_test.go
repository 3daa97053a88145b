package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/knowledge/chunk"
)

var updateContents = flag.Bool("index.update-contents", false, "rewrite testdata/contents.golden from TestIndexContents's dump")

// contentsGolden holds the digest of each table after TestIndexContents's
// writes: what the index holds for a corpus must not change with how the
// rows are written (batches, statements, COPY).
const contentsGolden = "testdata/contents.golden"

// dumpTables returns, for each of the index's tables, its row count and
// the SHA-256 of its rows in key order, every column written out.
func dumpTables(t testing.TB, ix *Index) string {
	t.Helper()
	ctx := context.Background()
	tables := []struct{ name, query string }{
		{"kb_bases", `SELECT id, name, last_commit, updated_at, files, chunks, tokens FROM kb_bases ORDER BY id`},
		{"kb_files", `SELECT id, kb_id, name, hash, chunks, tokens, terms, updated_at FROM kb_files ORDER BY id`},
		{"kb_chunks", `SELECT file_id, ord, source, source_type, start_line, end_line, symbol, text, vec FROM kb_chunks ORDER BY file_id, ord`},
		{"kb_terms", `SELECT kb_id, term, df FROM kb_terms ORDER BY kb_id, term`},
		{"kb_postings", `SELECT kb_id, term, file_id, part, post FROM kb_postings ORDER BY kb_id, term, file_id, part`},
	}
	var out strings.Builder
	for _, tb := range tables {
		rs, err := ix.pool.Query(ctx, tb.query)
		if err != nil {
			t.Fatalf("%s: %v", tb.name, err)
		}
		h := sha256.New()
		n := 0
		for rs.Next() {
			ncol := strings.Count(tb.query[:strings.Index(tb.query, " FROM ")], ",") + 1
			vals := make([]any, ncol)
			ptrs := make([]any, ncol)
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rs.Scan(ptrs...); err != nil {
				t.Fatalf("%s: %v", tb.name, err)
			}
			for _, v := range vals {
				switch v := v.(type) {
				case []byte:
					fmt.Fprintf(h, "x%s|", hex.EncodeToString(v))
				case nil:
					fmt.Fprint(h, "null|")
				case string:
					fmt.Fprintf(h, "%q|", v)
				default:
					fmt.Fprintf(h, "%v|", v)
				}
			}
			fmt.Fprintln(h)
			n++
		}
		if err := rs.Err(); err != nil {
			t.Fatalf("%s: %v", tb.name, err)
		}
		_ = rs.Close()
		fmt.Fprintf(&out, "%s %d %x\n", tb.name, n, h.Sum(nil))
	}
	return out.String()
}

// TestIndexContents writes a real corpus (testdata/corpus), the bench's
// generated Go code, a knowledge base with vectors, and then changes
// (files rewritten, deleted, unchanged), on each database, and compares
// every table's rows with the golden digest: the index's contents for the
// same writes are the same on both databases and whatever the write path.
func TestIndexContents(t *testing.T) {
	eachBackend(t, func(t *testing.T, db string) {
		got := buildContents(t, db)
		if *updateContents {
			if err := os.WriteFile(contentsGolden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		want, err := os.ReadFile(contentsGolden)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("the index's tables differ from %s:\ngot\n%swant\n%s", filepath.Base(contentsGolden), got, want)
		}
	})
}

// buildContents makes TestIndexContents's writes into db and dumps the
// tables.
func buildContents(t *testing.T, db string) string {
	t.Helper()
	ctx := context.Background()
	clock := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { clock = clock.Add(time.Millisecond); return clock }
	ix := openIndex(t, db, Options{Tokenizer: chunk.Tokens, Now: now})
	real := loadCorpus(t)
	for _, f := range real {
		mustReplaceChunks(t, ix, "real", f.name, f.hash, f.chunks)
	}
	gen, _ := genGoCorpus(800)
	split := func(name string, text []byte) []chunk.Chunk {
		cs, err := chunk.Split(name, "gen", text, chunk.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	for _, f := range gen {
		mustReplaceChunks(t, ix, "gen", f.name, "h0", split(f.name, f.text))
	}
	// Changes: a file rewritten with another's content, one deleted, one
	// unchanged, one emptied.
	mustReplaceChunks(t, ix, "gen", gen[0].name, "h1", split(gen[0].name, gen[3].text))
	if err := ix.Delete(ctx, "gen", gen[1].name); err != nil {
		t.Fatal(err)
	}
	mustReplaceChunks(t, ix, "gen", gen[2].name, "h0", split(gen[2].name, gen[2].text))
	mustReplaceChunks(t, ix, "gen", gen[4].name, "h1", nil)
	mustReplaceChunks(t, ix, "real", real[0].name, "changed", real[1].chunks)
	if err := ix.SetMeta(ctx, "gen", "c1"); err != nil {
		t.Fatal(err)
	}
	vix := openIndex(t, db, Options{Tokenizer: chunk.Tokens, Now: now, Embedder: textHashEmbedder{}})
	for _, f := range real[:5] {
		mustReplaceChunks(t, vix, "vec", f.name, f.hash, f.chunks)
	}
	return dumpTables(t, ix)
}

// textHashEmbedder gives a text the 8 coordinates of its FNV-1a hashes
// with 8 seeds: deterministic to the bit (HashEmbedder sums in a map's
// order, so its float32 sums may differ in the last bit).
type textHashEmbedder struct{}

func (textHashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 8)
		for j := range v {
			h := fnv.New32a()
			_, _ = fmt.Fprintf(h, "%d %s", j, t)
			v[j] = float32(h.Sum32()%1000) + 1
		}
		out[i] = v
	}
	return out, nil
}

func mustReplaceChunks(t testing.TB, ix *Index, kb, name, hash string, chunks []chunk.Chunk) {
	t.Helper()
	if _, err := ix.Replace(context.Background(), kb, name, hash, chunks); err != nil {
		t.Fatalf("Replace(%s, %s): %v", kb, name, err)
	}
}
