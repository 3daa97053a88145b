package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/cputime"
	"github.com/agentgw/agentgw/knowledge/chunk"
)

// genFile is a generated Go file: its name and content.
type genFile struct {
	name string
	text []byte
}

// genGoCorpus generates n Go functions, 100 a file, as the bench's recall
// corpus does (bench/recall.go, writeCorpus: the same generator, seeds and
// shapes, so the same n gives the same files): words of a Zipf law over Go's
// common identifiers and made-up ones, about 25 lines a function. It
// returns the files and their lines.
func genGoCorpus(n int) ([]genFile, int) {
	const perFile = 100
	rng := rand.New(rand.NewPCG(29, 3))
	vocab := genVocab(rng, 6000)
	zipf := rand.NewZipf(rand.New(rand.NewPCG(28, 3)), 1.1, 2, uint64(len(vocab)-1))
	word := func() string { return vocab[zipf.Uint64()] }
	var files []genFile
	lines := 0
	for f := 0; f*perFile < n; f++ {
		var b strings.Builder
		fmt.Fprintf(&b, "package pkg%03d\n\n", f/50)
		for i := f * perFile; i < min(n, (f+1)*perFile); i++ {
			name := camel(word(), word(), word())
			fmt.Fprintf(&b, "// %s %s the %s of %s %s and %s.\n", name, word(), word(), word(), word(), word())
			fmt.Fprintf(&b, "func %s(ctx context.Context, %s %s) (%s, error) {\n", name, word(), camel(word(), word()), camel(word()))
			for range 3 + rng.IntN(5) {
				fmt.Fprintf(&b, "\t%s, err := %s.%s(ctx, %s)\n\tif err != nil {\n\t\treturn nil, fmt.Errorf(\"%s %s: %%w\", err)\n\t}\n",
					word(), word(), camel(word(), word()), word(), word(), word())
			}
			fmt.Fprintf(&b, "\treturn %s, nil\n}\n\n", word())
		}
		text := b.String()
		lines += strings.Count(text, "\n")
		files = append(files, genFile{name: fmt.Sprintf("pkg%03d/file%05d.go", f/50, f), text: []byte(text)})
	}
	return files, lines
}

// genVocab is bench/recall.go's makeVocab.
func genVocab(rng *rand.Rand, n int) []string {
	common := []string{"err", "ctx", "value", "result", "data", "id", "name", "key", "store", "request",
		"response", "config", "client", "handler", "error", "order", "user", "item", "cache", "query"}
	syll := []string{"ba", "ko", "ri", "tan", "mel", "sor", "vi", "qu", "dex", "lo", "pra", "zen", "fu", "gal",
		"hes", "nor", "pi", "cru", "wex", "ym", "ol", "tri", "sta", "mon"}
	seen := map[string]bool{}
	vocab := make([]string, 0, n)
	for _, w := range common {
		seen[w] = true
		vocab = append(vocab, w)
	}
	for len(vocab) < n {
		w := ""
		for range 2 + rng.IntN(2) {
			w += syll[rng.IntN(len(syll))]
		}
		if !seen[w] {
			seen[w] = true
			vocab = append(vocab, w)
		}
	}
	return vocab
}

// camel joins words as a Go identifier in camel case.
func camel(words ...string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 && w != "" {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
	}
	return b.String()
}

// buildFuncs is how many functions BenchmarkIndexBuildGo indexes, from
// the environment variable of that name (default 2,000: 20 files, about
// 50,000 lines); the bench's recall row indexes 100,000.
func buildFuncs(b *testing.B) int {
	n := 2000
	if s := os.Getenv("AGENTGW_KB_BUILD_FUNCS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v <= 0 {
			b.Fatalf("AGENTGW_KB_BUILD_FUNCS=%q: want a positive number", s)
		}
		n = v
	}
	return n
}

// BenchmarkIndexBuildGo indexes the bench's generated Go corpus as agentgw
// kb index does (chunk.Split, chunk.Tokens, a Replace per file) into a new
// database per iteration, and reports the time and the process's CPU per
// 10,000 lines; on PostgreSQL also the CPU of the server's backends
// (server-cpu-ms, when the server runs on this machine: serverCPU). split
// measures the chunking alone.
func BenchmarkIndexBuildGo(b *testing.B) {
	files, lines := genGoCorpus(buildFuncs(b))
	per10k := func(b *testing.B, d time.Duration) float64 {
		return float64(d.Nanoseconds()) / 1e6 / float64(b.N) * 10000 / float64(lines)
	}
	b.Run("split", func(b *testing.B) {
		b.ReportAllocs()
		start := time.Now()
		for b.Loop() {
			for _, f := range files {
				if _, err := chunk.Split(f.name, "bench", f.text, chunk.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(per10k(b, time.Since(start)), "ms/10k-lines")
	})
	for _, be := range backends {
		for _, batched := range []bool{false, true} {
			mode := "replace"
			if batched {
				mode = "writer"
			}
			b.Run(be.name+"/"+mode, func(b *testing.B) {
				ctx := context.Background()
				b.ReportAllocs()
				var wall, cpu, server time.Duration
				serverOK := true
				var mu sync.Mutex
				var txs []time.Duration
				for b.Loop() {
					b.StopTimer()
					db := be.newDB(b)
					ix := openIndex(b, db, Options{Tokenizer: chunk.Tokens})
					w := ix.NewWriter("bench")
					w.onWrite = func(d time.Duration) {
						mu.Lock()
						txs = append(txs, d)
						mu.Unlock()
					}
					var server0 time.Duration
					if be.name == "postgres" {
						var ok bool
						server0, ok = serverCPU(ctx, db)
						serverOK = serverOK && ok
					}
					b.StartTimer()
					start, cpu0 := time.Now(), cputime.Process()
					for _, f := range files {
						chunks, err := chunk.Split(f.name, "bench", f.text, chunk.Options{})
						if err != nil {
							b.Fatal(err)
						}
						hash := fmt.Sprint(len(f.text))
						if batched {
							err = w.Replace(ctx, f.name, hash, chunks)
						} else {
							_, err = ix.Replace(ctx, "bench", f.name, hash, chunks)
						}
						if err != nil {
							b.Fatal(err)
						}
					}
					if err := w.Flush(ctx); err != nil {
						b.Fatal(err)
					}
					wall, cpu = wall+time.Since(start), cpu+cputime.Process()-cpu0
					if be.name == "postgres" {
						b.StopTimer()
						server1, ok := serverCPU(ctx, db)
						serverOK = serverOK && ok
						server += server1 - server0
						b.StartTimer()
					}
				}
				b.ReportMetric(per10k(b, wall), "ms/10k-lines")
				b.ReportMetric(per10k(b, cpu), "cpu-ms/10k-lines")
				if be.name == "postgres" && serverOK {
					// The server's backends of the test's database.
					b.ReportMetric(per10k(b, server), "server-cpu-ms/10k-lines")
				}
				if len(txs) > 0 {
					// How long a batch holds the write lock (SQLite).
					slices.Sort(txs)
					b.ReportMetric(float64(txs[len(txs)/2].Microseconds())/1000, "batch-p50-ms")
					b.ReportMetric(float64(txs[len(txs)-1].Microseconds())/1000, "batch-max-ms")
				}
			})
		}
	}
}
