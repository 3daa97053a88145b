// Package eval is the recall benchmark of the knowledge bases that the
// ranker was not developed on: questions over corpora no ranking code was
// written against, split once and for all into a development half, for
// tuning, and a held-out half that is only ever scored.
//
// # The corpora (testdata, read at test time; nothing from GOROOT)
//
//   - go: the non-test .go files of 28 standard library packages of
//     go1.26.8 (testdata/go/VERSION; BSD licence, testdata/go/LICENSE),
//     net/http, encoding/json and text/template among them. They are
//     vendored rather than read from GOROOT so that the figures do not
//     move with the toolchain that runs the tests (CI builds with
//     golang:1.26, whatever its patch release), and a test checks them
//     against GOROOT when it is go1.26.8.
//   - js: commander 14.0.3 (npm pack commander@14; MIT,
//     testdata/js/commander/LICENSE), its lib, index.js and package.json.
//
// Each file is split by the gateway's own splitter (knowledge/chunk) and
// indexed as the gateway indexes it (index.Options with chunk.Tokens).
//
// # The question sets
//
//   - generated: made by Generate from the doc comments of the exported
//     declarations of the go corpus (see Generate), kept in
//     testdata/generated.json; a test regenerates it and compares.
//   - go-handwritten: 60 questions over net/http, encoding/json and
//     text/template, phrased as a developer asks them.
//   - js-handwritten: 28 questions over commander.
//
// The hand-written ones were written before any ranking of them was run
// and are not to be changed after seeing scores (git log shows when).
//
// A question's answers name declarations (a package and a name such as
// Server.Shutdown, or a file and a chunk's symbol for JavaScript); each is
// resolved, when the suite loads, to the lines that declare it, and a hit
// answers the question when it is a chunk of that file holding that line:
// the chunk that declares it, however the splitter cuts the file. When a
// question has several answers (a name declared in two files under
// different build tags, or two equally right functions), the first hit
// answering any of them counts.
//
// # Halves
//
// A question is held out when the first byte of SHA-256("agentgw recall
// eval/" + id) is odd. Tune returns per-question results of the
// development half only; Score returns the figures of both halves and no
// per-question result of the held-out one. Choose weights with Tune.
//
// # Metrics
//
// Over the first 10 hits: recall@1, recall@5, MRR@10 (1/rank of the first
// answering hit, 0 beyond 10) and nDCG@10 with one relevant chunk per
// question (1/log2(rank+1)).
package eval

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/knowledge/chunk"
	"github.com/agentgw/agentgw/knowledge/index"
)

// Names of the corpora, used as the knowledge bases' ids.
const (
	CorpusGo = "go"
	CorpusJS = "js"
)

// Names of the question sets.
const (
	SetGenerated     = "generated"
	SetGoHandwritten = "go-handwritten"
	SetJSHandwritten = "js-handwritten"
)

// Halves of a set; Both names the figures of the two together (Score
// only).
const (
	Dev     = "dev"
	HeldOut = "heldout"
	Both    = "both"
)

// TopK is how many hits a question is asked for.
const TopK = 10

// Answer names a declaration that answers a question. Go answers name a
// package (Pkg, its path under the go corpus) and a declared Name:
// "Marshal", "Server.Shutdown" for a method, "package" for the package
// clause; File, when set, keeps the declarations of that file (a base
// name) only. JavaScript answers name a File of the corpus and the Symbol
// of the chunk that declares Name ("Command.option").
type Answer struct {
	Pkg  string `json:"pkg,omitempty"`
	File string `json:"file,omitempty"`
	Name string `json:"name"`
}

// Question is a question of a set and what answers it.
type Question struct {
	ID      string   `json:"id"`
	Q       string   `json:"q"`
	Answers []Answer `json:"answers"`
}

// site is a line of a corpus file declaring an answer.
type site struct {
	file string
	line int
}

// question is a loaded question: its answers resolved to sites.
type question struct {
	Question
	set, half string
	sites     []site
}

// File is a corpus file as indexed.
type File struct {
	Name, Hash string
	Lines      int
	Chunks     []chunk.Chunk
	src        []byte
}

// Suite is the loaded benchmark: the corpora, split, and the questions,
// resolved.
type Suite struct {
	corpora   map[string][]File
	questions []question
	goVersion string
}

// setCorpus is the corpus each set asks.
var setCorpus = map[string]string{
	SetGenerated:     CorpusGo,
	SetGoHandwritten: CorpusGo,
	SetJSHandwritten: CorpusJS,
}

// setFiles are the files of the sets in the testdata directory.
var setFiles = map[string]string{
	SetGenerated:     "generated.json",
	SetGoHandwritten: "handwritten-go.json",
	SetJSHandwritten: "handwritten-js.json",
}

// Sets lists the question sets, in the order reports show them.
func Sets() []string { return []string{SetGenerated, SetGoHandwritten, SetJSHandwritten} }

// HalfOf is the half a question of that id belongs to.
func HalfOf(id string) string {
	sum := sha256.Sum256([]byte("agentgw recall eval/" + id))
	if sum[0]&1 == 1 {
		return HeldOut
	}
	return Dev
}

// Load reads the benchmark from dir (this package's testdata): splits
// the corpora and resolves every answer of every question, failing on one
// that names nothing.
func Load(dir string) (*Suite, error) {
	s := &Suite{corpora: map[string][]File{}}
	v, err := os.ReadFile(filepath.Join(dir, "go", "VERSION"))
	if err != nil {
		return nil, fmt.Errorf("eval: reading the go corpus's version: %w", err)
	}
	s.goVersion = strings.TrimSpace(string(v))
	for name, root := range map[string]string{CorpusGo: filepath.Join(dir, "go", "src"), CorpusJS: filepath.Join(dir, "js", "commander")} {
		files, err := readCorpus(root)
		if err != nil {
			return nil, fmt.Errorf("eval: reading the %s corpus: %w", name, err)
		}
		s.corpora[name] = files
	}
	goIdx, err := declarations(s.corpora[CorpusGo])
	if err != nil {
		return nil, err
	}
	for _, set := range Sets() {
		b, err := os.ReadFile(filepath.Join(dir, setFiles[set]))
		if err != nil {
			return nil, fmt.Errorf("eval: reading the %s questions: %w", set, err)
		}
		var qs []Question
		if err := json.Unmarshal(b, &qs); err != nil {
			return nil, fmt.Errorf("eval: decoding %s: %w", setFiles[set], err)
		}
		for _, q := range qs {
			lq := question{Question: q, set: set, half: HalfOf(q.ID)}
			if q.ID == "" || strings.TrimSpace(q.Q) == "" || len(q.Answers) == 0 {
				return nil, fmt.Errorf("eval: %s: question %q lacks an id, a text or an answer", set, q.ID)
			}
			for _, a := range q.Answers {
				var sites []site
				if setCorpus[set] == CorpusGo {
					sites = goIdx.resolve(a)
				} else {
					sites = resolveSymbol(s.corpora[setCorpus[set]], a)
				}
				if len(sites) == 0 {
					return nil, fmt.Errorf("eval: %s: question %s: the answer %+v declares nothing in the %s corpus", set, q.ID, a, setCorpus[set])
				}
				lq.sites = append(lq.sites, sites...)
			}
			s.questions = append(s.questions, lq)
		}
	}
	ids := map[string]bool{}
	for _, q := range s.questions {
		if ids[q.ID] {
			return nil, fmt.Errorf("eval: the question id %s is used twice", q.ID)
		}
		ids[q.ID] = true
	}
	return s, nil
}

// readCorpus reads and splits the files under root, named by their
// slash-separated paths below it, in name order.
func readCorpus(root string) ([]File, error) {
	var files []File
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		cs, err := chunk.Split(name, "eval", b, chunk.Options{})
		if err != nil {
			return fmt.Errorf("splitting %s: %w", name, err)
		}
		sum := sha256.Sum256(b)
		files = append(files, File{Name: name, Hash: hex.EncodeToString(sum[:]), Lines: strings.Count(string(b), "\n"), Chunks: cs, src: b})
		return nil
	})
	slices.SortFunc(files, func(a, b File) int { return cmp.Compare(a.Name, b.Name) })
	return files, err
}

// resolveSymbol finds the chunks of a.File whose symbol is a.Name (or
// lists it, for a declaration of several names).
func resolveSymbol(files []File, a Answer) []site {
	var out []site
	for _, f := range files {
		if f.Name != a.File {
			continue
		}
		for _, c := range f.Chunks {
			if c.Symbol == a.Name || slices.Contains(strings.Split(c.Symbol, ", "), a.Name) {
				out = append(out, site{f.Name, c.StartLine})
			}
		}
	}
	return out
}

// GoVersion is the Go release the go corpus was copied from.
func (s *Suite) GoVersion() string { return s.goVersion }

// Corpus returns the files of a corpus, split.
func (s *Suite) Corpus(name string) []File { return s.corpora[name] }

// DevQuestions returns the questions of a set's development half. The
// held-out half is not given out.
func (s *Suite) DevQuestions(set string) []Question {
	var out []Question
	for _, q := range s.questions {
		if q.set == set && q.half == Dev {
			out = append(out, q.Question)
		}
	}
	return out
}

// Counts returns how many questions each set has in each half, by
// "set/half".
func (s *Suite) Counts() map[string]int {
	m := map[string]int{}
	for _, q := range s.questions {
		m[q.set+"/"+q.half]++
	}
	return m
}

// IndexAll indexes both corpora into ix, each as the knowledge base of its
// name (CorpusGo, CorpusJS); files already indexed unchanged are skipped.
func (s *Suite) IndexAll(ctx context.Context, ix *index.Index) error {
	for _, name := range []string{CorpusGo, CorpusJS} {
		for _, f := range s.corpora[name] {
			if _, err := ix.Replace(ctx, name, f.Name, f.Hash, f.Chunks); err != nil {
				return fmt.Errorf("eval: indexing %s/%s: %w", name, f.Name, err)
			}
		}
	}
	return nil
}

// Metrics are a ranking's figures over some questions.
type Metrics struct {
	N       int
	Recall1 float64
	Recall5 float64
	MRR     float64 // @10
	NDCG    float64 // @10
}

func (m Metrics) String() string {
	return fmt.Sprintf("n %3d  R@1 %.3f  R@5 %.3f  MRR %.3f  nDCG@10 %.3f", m.N, m.Recall1, m.Recall5, m.MRR, m.NDCG)
}

// Result is one development question's outcome: the rank of the first
// answering hit (0: not in the first TopK) and the hits' places.
type Result struct {
	Set  string
	ID   string
	Q    string
	Rank int
	Hits []string // file:start-end symbol, best first
}

// Report is what a run measured: Metrics by "set/half" (set "all" for the
// sets together, half Both for the halves together) and, for Tune, the
// development questions' results.
type Report struct {
	Metrics map[string]Metrics
	Results []Result
}

// Tune runs the development half of every set against ix (both corpora
// indexed, see IndexAll) and returns its figures and each question's
// result. It is the only entry point with per-question results: tune
// with it.
func (s *Suite) Tune(ctx context.Context, ix *index.Index) (Report, error) {
	return s.run(ctx, ix, true)
}

// Score runs every question against ix and returns the figures of both
// halves, and no per-question result.
func (s *Suite) Score(ctx context.Context, ix *index.Index) (Report, error) {
	r, err := s.run(ctx, ix, false)
	r.Results = nil
	return r, err
}

func (s *Suite) run(ctx context.Context, ix *index.Index, devOnly bool) (Report, error) {
	sums := map[string]*Metrics{}
	var results []Result
	for _, q := range s.questions {
		if devOnly && q.half != Dev {
			continue
		}
		hits, err := ix.Search(ctx, index.Query{KB: []string{setCorpus[q.set]}, Text: q.Q, TopK: TopK})
		if err != nil {
			return Report{}, fmt.Errorf("eval: searching %s: %w", q.ID, err)
		}
		rank := rankOf(hits, q.sites)
		keys := []string{q.set + "/" + q.half, "all/" + q.half}
		if !devOnly {
			keys = append(keys, q.set+"/"+Both, "all/"+Both)
		}
		for _, k := range keys {
			m := sums[k]
			if m == nil {
				m = &Metrics{}
				sums[k] = m
			}
			m.add(rank)
		}
		if q.half == Dev {
			r := Result{Set: q.set, ID: q.ID, Q: q.Q, Rank: rank}
			for _, h := range hits {
				r.Hits = append(r.Hits, fmt.Sprintf("%s:%d-%d %s", h.Chunk.FileName, h.Chunk.StartLine, h.Chunk.EndLine, h.Chunk.Symbol))
			}
			results = append(results, r)
		}
	}
	out := Report{Metrics: map[string]Metrics{}, Results: results}
	for k, m := range sums {
		out.Metrics[k] = m.mean()
	}
	return out, nil
}

// rankOf is the 1-based rank of the first hit that is a chunk holding one
// of the sites, 0 when none is.
func rankOf(hits []index.Hit, sites []site) int {
	for i, h := range hits {
		for _, st := range sites {
			if h.Chunk.FileName == st.file && h.Chunk.StartLine <= st.line && st.line <= h.Chunk.EndLine {
				return i + 1
			}
		}
	}
	return 0
}

// add counts a question whose first answer is at rank (0: none).
func (m *Metrics) add(rank int) {
	m.N++
	if rank == 1 {
		m.Recall1++
	}
	if rank >= 1 && rank <= 5 {
		m.Recall5++
	}
	if rank >= 1 && rank <= TopK {
		m.MRR += 1 / float64(rank)
		m.NDCG += 1 / math.Log2(float64(rank)+1)
	}
}

func (m *Metrics) mean() Metrics {
	if m.N == 0 {
		return *m
	}
	n := float64(m.N)
	return Metrics{N: m.N, Recall1: m.Recall1 / n, Recall5: m.Recall5 / n, MRR: m.MRR / n, NDCG: m.NDCG / n}
}

// Table formats a report's figures of several configurations, a line per
// configuration, set and half, in a stable order.
func Table(reports map[string]Report) string {
	var b strings.Builder
	configs := make([]string, 0, len(reports))
	for c := range reports {
		configs = append(configs, c)
	}
	slices.Sort(configs)
	fmt.Fprintf(&b, "%-8s %-15s %-8s %s\n", "config", "set", "half", "figures")
	for _, c := range configs {
		for _, set := range append(Sets(), "all") {
			for _, half := range []string{Dev, HeldOut, Both} {
				m, ok := reports[c].Metrics[set+"/"+half]
				if !ok {
					continue
				}
				fmt.Fprintf(&b, "%-8s %-15s %-8s %s\n", c, set, half, m)
			}
		}
	}
	return b.String()
}
