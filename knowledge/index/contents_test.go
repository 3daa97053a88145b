package index

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"hash/fnv"
	"maps"
	"os"
	"path/filepath"
	"slices"
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
	// A knowledge base is named, not numbered: its id counts the
	// transactions that wrote to kb_bases before it (an upsert takes a
	// number even when the row exists), so it hangs on how the writes
	// were batched, not on what they wrote.
	tables := []struct {
		name  string
		cols  int
		query string
	}{
		{"kb_bases", 6, `SELECT name, last_commit, updated_at, files, chunks, tokens FROM kb_bases ORDER BY name`},
		{"kb_files", 8, `SELECT f.id, b.name, f.name, f.hash, f.chunks, f.tokens, f.terms, f.updated_at
FROM kb_files f JOIN kb_bases b ON b.id = f.kb_id ORDER BY f.id`},
		{"kb_chunks", 9, `SELECT file_id, ord, source, source_type, start_line, end_line, symbol, text, vec FROM kb_chunks ORDER BY file_id, ord`},
		{"kb_terms", 3, `SELECT b.name, t.term, t.df FROM kb_terms t JOIN kb_bases b ON b.id = t.kb_id ORDER BY b.name, t.term`},
		{"kb_postings", 5, `SELECT b.name, p.term, p.file_id, p.part, p.post FROM kb_postings p JOIN kb_bases b ON b.id = p.kb_id
ORDER BY b.name, p.term, p.file_id, p.part`},
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
			vals := make([]any, tb.cols)
			ptrs := make([]any, tb.cols)
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
// same writes are the same on both databases and whatever the write path
// (a Replace or Delete at a time, or a Writer's batches).
func TestIndexContents(t *testing.T) {
	for _, batched := range []bool{false, true} {
		t.Run(fmt.Sprintf("writer=%v", batched), func(t *testing.T) {
			eachBackend(t, func(t *testing.T, db string) { checkContents(t, db, batched) })
		})
	}
}

func checkContents(t *testing.T, db string, batched bool) {
	got := buildContents(t, db, batched)
	{
		if *updateContents && !batched {
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
	}
}

// contentWriter writes a knowledge base's files for buildContents.
type contentWriter interface {
	replace(kb, name, hash string, chunks []chunk.Chunk)
	delete(kb, name string)
	flush()
}

// oneByOne writes with Index.Replace and Index.Delete.
type oneByOne struct {
	t  *testing.T
	ix *Index
}

func (o oneByOne) replace(kb, name, hash string, chunks []chunk.Chunk) {
	mustReplaceChunks(o.t, o.ix, kb, name, hash, chunks)
}

func (o oneByOne) delete(kb, name string) {
	if err := o.ix.Delete(context.Background(), kb, name); err != nil {
		o.t.Fatal(err)
	}
}

func (oneByOne) flush() {}

// batched writes with a Writer per knowledge base, flushed at flush.
type batched struct {
	t  *testing.T
	ix *Index
	w  map[string]*Writer
}

func (b batched) writer(kb string) *Writer {
	if b.w[kb] == nil {
		b.w[kb] = b.ix.NewWriter(kb)
		b.w[kb].maxFiles = 3 // several batches of the generated files
	}
	return b.w[kb]
}

func (b batched) replace(kb, name, hash string, chunks []chunk.Chunk) {
	if err := b.writer(kb).Replace(context.Background(), name, hash, chunks); err != nil {
		b.t.Fatal(err)
	}
}

func (b batched) delete(kb, name string) {
	if err := b.writer(kb).Delete(context.Background(), name); err != nil {
		b.t.Fatal(err)
	}
}

func (b batched) flush() {
	for _, kb := range slices.Sorted(maps.Keys(b.w)) {
		if err := b.w[kb].Flush(context.Background()); err != nil {
			b.t.Fatal(err)
		}
	}
}

// buildContents makes TestIndexContents's writes into db, one by one or
// through Writers, and dumps the tables.
func buildContents(t *testing.T, db string, viaWriter bool) string {
	t.Helper()
	ctx := context.Background()
	clock := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	ix := openIndex(t, db, Options{Tokenizer: chunk.Tokens, Now: now})
	vix := openIndex(t, db, Options{Tokenizer: chunk.Tokens, Now: now, Embedder: textHashEmbedder{}})
	var w, vw contentWriter = oneByOne{t, ix}, oneByOne{t, vix}
	if viaWriter {
		w, vw = batched{t, ix, map[string]*Writer{}}, batched{t, vix, map[string]*Writer{}}
	}
	real := loadCorpus(t)
	// A Writer per knowledge base: flushed where another base's files
	// follow, so that the files' ids are in the same order.
	for _, f := range real {
		w.replace("real", f.name, f.hash, f.chunks)
	}
	w.flush()
	gen, _ := genGoCorpus(800)
	split := func(name string, text []byte) []chunk.Chunk {
		cs, err := chunk.Split(name, "gen", text, chunk.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	for _, f := range gen {
		w.replace("gen", f.name, "h0", split(f.name, f.text))
	}
	// A file of 400 chunks: its common terms' postings are cut into parts.
	body := func(f genFile) []byte { return bytes.TrimPrefix(f.text, []byte("package pkg000\n")) }
	big := slices.Concat(gen[0].text, body(gen[1]), body(gen[2]), body(gen[3]))
	w.replace("gen", "big/all.go", "h0", split("big/all.go", big))
	// Changes: a file rewritten with another's content, one deleted, one
	// unchanged, one emptied, one deleted and written again, a file not
	// indexed deleted.
	w.replace("gen", gen[0].name, "h1", split(gen[0].name, gen[3].text))
	w.delete("gen", gen[1].name)
	w.replace("gen", gen[2].name, "h0", split(gen[2].name, gen[2].text))
	w.replace("gen", gen[4].name, "h1", nil)
	w.delete("gen", gen[5].name)
	w.replace("gen", gen[5].name, "h2", split(gen[5].name, gen[6].text))
	w.delete("gen", "nothere.go")
	w.delete("none", "nothere.go")
	w.flush()
	w.replace("real", real[0].name, "changed", real[1].chunks)
	w.flush()
	if err := ix.SetMeta(ctx, "gen", "c1"); err != nil {
		t.Fatal(err)
	}
	for _, f := range real[:5] {
		vw.replace("vec", f.name, f.hash, f.chunks)
	}
	// Vectors kept from the file's previous chunks.
	vw.flush()
	vw.replace("vec", real[0].name, "again", real[0].chunks)
	vw.flush()
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
