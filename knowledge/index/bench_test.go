package index

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/cputime"
	"github.com/agentgw/agentgw/knowledge/chunk"
)

// synth generates a synthetic code corpus: words drawn from a Zipf
// distribution over a vocabulary of made-up words, in lines shaped like
// Go (declarations of camelCase identifiers, comments, calls).
type synth struct {
	rng   *rand.Rand
	zipf  *rand.Zipf
	vocab []string
}

func newSynth(seed uint64, vocabSize int) *synth {
	rng := rand.New(rand.NewPCG(seed, seed))
	syl := []string{"ba", "ko", "ri", "tu", "me", "sa", "lo", "ni", "pe", "da", "gu", "fi", "zo", "ha", "ve", "xu", "ca", "mo", "te", "li"}
	seen := map[string]bool{}
	var vocab []string
	for len(vocab) < vocabSize {
		n := 2 + rng.IntN(3)
		var b strings.Builder
		for range n {
			b.WriteString(syl[rng.IntN(len(syl))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			vocab = append(vocab, w)
		}
	}
	return &synth{rng: rng, zipf: rand.NewZipf(rng, 1.1, 2, uint64(vocabSize-1)), vocab: vocab}
}

func (s *synth) word() string { return s.vocab[s.zipf.Uint64()] }

// ident is a camelCase identifier of two or three words.
func (s *synth) ident() string {
	id := s.word()
	for range 1 + s.rng.IntN(2) {
		w := s.word()
		id += strings.ToUpper(w[:1]) + w[1:]
	}
	return id
}

// chunkText is a chunk of about ten lines; its symbol is its first
// identifier.
func (s *synth) chunkText() (symbol, text string) {
	symbol = s.ident()
	var b strings.Builder
	fmt.Fprintf(&b, "// %s %s %s %s %s %s.\n", symbol, s.word(), s.word(), s.word(), s.word(), s.word())
	fmt.Fprintf(&b, "func %s(%s %s, %s %s) error {\n", symbol, s.word(), s.ident(), s.word(), s.word())
	for range 6 {
		switch s.rng.IntN(3) {
		case 0:
			fmt.Fprintf(&b, "\t%s := %s(%s, %s)\n", s.word(), s.ident(), s.word(), s.word())
		case 1:
			fmt.Fprintf(&b, "\t// %s %s %s %s\n", s.word(), s.word(), s.word(), s.word())
		default:
			fmt.Fprintf(&b, "\tif %s != nil { return %s.%s() }\n", s.word(), s.word(), s.ident())
		}
	}
	b.WriteString("}\n")
	return symbol, b.String()
}

// file is a synthetic file of n chunks.
func (s *synth) file(name string, n int) []chunk.Chunk {
	out := make([]chunk.Chunk, n)
	for i := range out {
		sym, text := s.chunkText()
		out[i] = chunk.Chunk{FileName: name, Source: "synth", SourceType: chunk.TypeCode,
			StartLine: 10*i + 1, EndLine: 10*i + 9, Symbol: sym, Text: text}
	}
	return out
}

// query is a query of two to five words, one of them sometimes an
// identifier.
func (s *synth) query() string {
	n := 2 + s.rng.IntN(4)
	var ws []string
	for range n {
		ws = append(ws, s.word())
	}
	if s.rng.IntN(3) == 0 {
		ws[0] = s.ident()
	}
	return strings.Join(ws, " ")
}

// longQuery is a query shaped like bench/recall.go's, the IDE's prompt
// and three selected lines of code, made only of words most chunks hold:
// the code words of every chunk (func, error, if, nil, return) and the
// vocabulary's 40 commonest words (each in 20 to 98% of the chunks), so
// that little can be pruned (bench/README.md, the recall row).
func (s *synth) longQuery() string {
	w := func() string { return s.vocab[s.rng.IntN(40)] }
	id := func() string { v := w(); return w() + strings.ToUpper(v[:1]) + v[1:] }
	var b strings.Builder
	b.WriteString("is the error handling here right?\n")
	fmt.Fprintf(&b, "func %s(%s %s, %s %s) error {\n", id(), w(), id(), w(), w())
	fmt.Fprintf(&b, "\t%s := %s(%s, %s)\n", w(), id(), w(), w())
	fmt.Fprintf(&b, "\tif %s != nil { return %s.%s() }\n", w(), w(), id())
	return b.String()
}

// BenchmarkIndexBuild indexes the quality corpus (2,395 lines, 171
// chunks) into a new knowledge base per iteration and reports the time per
// 10,000 lines.
func BenchmarkIndexBuild(b *testing.B) {
	files := loadCorpus(b)
	lines := 0
	for _, f := range files {
		lines += f.lines
	}
	for _, be := range backends {
		for _, mode := range []struct {
			name string
			opts Options
		}{{"lexical", Options{}}, {"hybrid", Options{Embedder: HashEmbedder{Dim: 256}}}} {
			b.Run(be.name+"/"+mode.name, func(b *testing.B) {
				ix := openIndex(b, be.newDB(b), mode.opts)
				b.ReportAllocs()
				b.ResetTimer()
				start, cpu0 := time.Now(), cputime.Process()
				for i := 0; b.Loop(); i++ {
					indexCorpus(b, ix, fmt.Sprint("kb", i), files)
				}
				b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N)*10000/float64(lines), "ms/10k-lines")
				b.ReportMetric(float64((cputime.Process()-cpu0).Milliseconds())/float64(b.N)*10000/float64(lines), "cpu-ms/10k-lines")
			})
		}
	}
}

// Sizes of BenchmarkSearch100k's corpus.
const (
	synthFiles     = 10000
	synthPerFile   = 10
	synthLinesEach = 10
)

// keepBenchDB names an environment variable: a SQLite file where
// BenchmarkSearch100k keeps its index between runs (built when missing).
const keepBenchDB = "AGENTGW_KB_BENCH_DB"

// keepBenchPG is the same for Postgres: a database URL.
const keepBenchPG = "AGENTGW_KB_BENCH_PG"

// BenchmarkSearch100k builds an index of 100,000 synthetic chunks (a
// million lines) once per database, reporting its build time, and then
// measures searches: p50 and p99 latency, allocations per search.
// Hybrid compares the vectors of the 200 lexical candidates (the
// index holds more than BruteForceLimit chunks); hybrid-bruteforce lifts
// the limit to show what comparing all 100,000 vectors costs. The long
// queries are like bench/recall.go's (synth.longQuery); nocache runs
// without the postings cache (every term read from the database, as the
// first search naming it does), warm runs each query once before (the
// cache as a gateway's after its first searches of a version of the
// index). Each mode opens a new Index; on SQLite its first search starts
// the warm-up of the postings cache (warm.go) in the background, and the
// timed searches include those racing it, as a gateway's right after a
// start or another process's write; prewarmed runs Index.Warm before
// timing (a gateway once the warm-up its indexer runs at start, or
// Writer.Flush after an indexing run, is done). The log names the
// slowest searches by their order and the rows the first five read.
func BenchmarkSearch100k(b *testing.B) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			db := be.newDB(b)
			if keep := os.Getenv(keepBenchDB); keep != "" && be.name == "sqlite" {
				db = keep
			}
			if keep := os.Getenv(keepBenchPG); keep != "" && be.name == "postgres" {
				db = keep
			}
			emb := HashEmbedder{Dim: 256}
			builder := openIndex(b, db, Options{Embedder: emb})
			s := newSynth(1, 30000)
			ctx := context.Background()
			start, cpu0 := time.Now(), cputime.Process()
			for f := range synthFiles {
				if f == 0 {
					if st, _ := builder.Stats(ctx, "synth"); st.Chunks == synthFiles*synthPerFile {
						b.Logf("reusing the index in %s", db)
						for range synthFiles * synthPerFile {
							s.chunkText() // the generator's state after building
						}
						break
					}
				}
				name := fmt.Sprintf("pkg%03d/file%05d.go", f%500, f)
				if _, err := builder.Replace(ctx, "synth", name, fmt.Sprint(f), s.file(name, synthPerFile)); err != nil {
					b.Fatal(err)
				}
			}
			if err := builder.Optimize(ctx); err != nil {
				b.Fatal(err)
			}
			build, buildCPU := time.Since(start), cputime.Process()-cpu0
			st, err := builder.Stats(ctx, "synth")
			if err != nil || st.Chunks != synthFiles*synthPerFile {
				b.Fatalf("stats %+v, %v", st, err)
			}
			lines := synthFiles * synthPerFile * synthLinesEach
			size := ""
			if fi, err := os.Stat(db); err == nil {
				wal, _ := os.Stat(db + "-wal")
				n := fi.Size()
				if wal != nil {
					n += wal.Size()
				}
				size = fmt.Sprintf(", database %.0f MB", float64(n)/1e6)
			}
			b.Logf("%s: built %d chunks (%d lines, 256-dimension vectors) in %s (CPU %s): %.0f ms per 10k lines (CPU %.0f ms)%s",
				be.name, st.Chunks, lines, build.Round(time.Millisecond), buildCPU.Round(time.Millisecond),
				float64(build.Milliseconds())*10000/float64(lines), float64(buildCPU.Milliseconds())*10000/float64(lines), size)
			queries := make([]string, 500)
			for i := range queries {
				queries[i] = s.query()
			}
			noNames := DefaultRanking()
			noNames.Names = 0
			long := make([]string, 100)
			for i := range long {
				long[i] = s.longQuery()
			}
			noCache := Options{PostingsCacheBytes: -1}
			for _, mode := range []struct {
				name    string
				opts    Options
				queries []string
			}{
				{"lexical", Options{}, queries},
				{"lexical-nonames", Options{Ranking: &noNames}, queries}, // without the names clause: what it costs
				{"lexical-nocache", noCache, queries},
				{"lexical-long", Options{}, long},
				{"lexical-long-warm", Options{}, long}, // each query run once before
				{"lexical-long-nocache", noCache, long},
				// The warm-up of the postings cache done before: as a
				// while after a start or an indexing run.
				{"lexical-prewarmed", Options{}, queries},
				{"lexical-long-prewarmed", Options{}, long},
				{"hybrid", Options{Embedder: emb}, queries},
				{"hybrid-bruteforce", Options{Embedder: emb, BruteForceLimit: 1 << 30}, queries},
			} {
				b.Run(mode.name, func(b *testing.B) {
					ix := openIndex(b, db, mode.opts)
					if strings.HasSuffix(mode.name, "-prewarmed") {
						if err := ix.Warm(ctx, "synth"); err != nil { // as the gateway's indexer at its start
							b.Fatal(err)
						}
					}
					if strings.HasSuffix(mode.name, "-warm") {
						for _, q := range mode.queries {
							if _, err := ix.Search(ctx, Query{KB: []string{"synth"}, Text: q, TopK: 10}); err != nil {
								b.Fatal(err)
							}
						}
					}
					benchQueries(b, ix, mode.queries)
				})
			}
		})
	}
}

// benchQueries runs the queries round robin and reports p50 and p99,
// and what a search read: postings statements, rows, bytes, postings
// decoded.
func benchQueries(b *testing.B, ix *Index, queries []string) {
	ctx := context.Background()
	var lat []time.Duration
	var hits int
	var ms runtime.MemStats
	var read searchStats
	var firstRows []int // rows read by each of the first searches
	ix.onSearch = func(st searchStats) {
		read.add(st)
		if len(firstRows) < 5 {
			firstRows = append(firstRows, st.rows)
		}
	}
	// The warm-ups of the postings cache during the searches (the first
	// search of the Index starts one), and when the last ended.
	var mu sync.Mutex
	var warms, warmTerms int
	var warmEnd time.Time
	ix.onWarm = func(st warmStats, err error) {
		if err != nil {
			b.Error(err)
		}
		mu.Lock()
		defer mu.Unlock()
		warms++
		warmTerms += st.terms
		warmEnd = time.Now()
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, start := cputime.Process(), time.Now()
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		h, err := ix.Search(ctx, Query{KB: []string{"synth"}, Text: queries[i%len(queries)], TopK: 10})
		lat = append(lat, time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
		hits += len(h)
	}
	b.StopTimer()
	cpu := cputime.Process() - cpu0
	// The slowest searches and their order: the first ones of a new
	// Index, racing the warm-up, or any.
	order := make([]int, len(lat))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(lat[b], lat[a]) })
	var slow []string
	for _, i := range order[:min(5, len(order))] {
		slow = append(slow, fmt.Sprintf("#%d %.1f ms", i, float64(lat[i].Microseconds())/1000))
	}
	b.Logf("slowest searches: %s; postings rows read by the first five: %v", strings.Join(slow, ", "), firstRows)
	mu.Lock()
	if warms > 0 {
		b.ReportMetric(float64(warms), "warmups")
		b.ReportMetric(float64(warmTerms), "warm-terms")
		b.ReportMetric(float64(warmEnd.Sub(start).Microseconds())/1000, "warm-end-ms")
	}
	mu.Unlock()
	runtime.ReadMemStats(&ms)
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(hits)/float64(b.N), "hits/op")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(ms.HeapInuse)/1e6, "heap-MB")
	b.ReportMetric(float64(read.statements)/float64(b.N), "stmts/op")
	b.ReportMetric(float64(read.rows)/float64(b.N), "post-rows/op")
	b.ReportMetric(float64(read.bytes)/float64(b.N), "post-bytes/op")
	b.ReportMetric(float64(read.postings)/float64(b.N), "postings/op")
	b.ReportMetric(float64(read.cached)/float64(b.N), "cached-terms/op")
	b.ReportMetric(float64(read.scanned)/float64(b.N), "scanned/op")
}
