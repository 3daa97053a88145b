package eval

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/knowledge/chunk"
	"github.com/agentgw/agentgw/knowledge/index"
)

var diag = flag.Bool("eval.diag", false, "log, for each development question of the hand-written sets not answered first, which of its terms the gold chunk lacks")

// TestDiag lists the development half's misses with the query terms the
// declaring chunk holds and lacks (development questions only).
func TestDiag(t *testing.T) {
	if !*diag {
		t.Skip("-eval.diag")
	}
	s := loadSuite(t)
	ctx := context.Background()
	ix, closer, err := OpenIndex(ctx, filepath.Join(t.TempDir(), "eval.db"), Configs()[0].Options)
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	if err := s.IndexAll(ctx, ix); err != nil {
		t.Fatal(err)
	}
	tr, err := s.Tune(ctx, ix)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]question{}
	for _, q := range s.questions {
		if q.half == Dev {
			byID[q.ID] = q
		}
	}
	for _, res := range tr.Results {
		if res.Set == SetGenerated || res.Rank == 1 {
			continue
		}
		q := byID[res.ID]
		var gold chunk.Chunk
		for _, f := range s.corpora[setCorpus[q.set]] {
			for _, c := range f.Chunks {
				for _, st := range q.sites {
					if c.FileName == st.file && c.StartLine <= st.line && st.line <= c.EndLine && gold.Text == "" {
						gold = c
					}
				}
			}
		}
		have := map[string]bool{}
		for _, tk := range chunk.Tokens(gold.Text) {
			have[tk] = true
		}
		var in, out []string
		for _, tk := range chunk.QueryTokens(q.Q) {
			if have[tk] {
				in = append(in, tk)
			} else {
				out = append(out, tk)
			}
		}
		t.Logf("%s rank %d %q gold %s (%d lines)\n\tin: %s\n\tlacks: %s\n\ttop: %s", res.ID, res.Rank, res.Q, gold.Symbol,
			gold.EndLine-gold.StartLine+1, strings.Join(in, " "), strings.Join(out, " "), strings.Join(res.Hits[:min(3, len(res.Hits))], " | "))
	}
}

var gridOnly = flag.String("eval.gridonly", "", "the variants TestGrid scores, comma-separated (default all)")

var grid = flag.Bool("eval.grid", false, "score rankings around the default on the development half only")

// TestGrid scores variations of the default ranking, one parameter at a
// time, on the development half (Tune): how weights are chosen.
func TestGrid(t *testing.T) {
	if !*grid {
		t.Skip("-eval.grid")
	}
	s := loadSuite(t)
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "eval.db")
	ix, closer, err := OpenIndex(ctx, db, Configs()[0].Options)
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	if err := s.IndexAll(ctx, ix); err != nil {
		t.Fatal(err)
	}
	type variant struct {
		name string
		set  func(r *index.Ranking, v float64)
		vals []float64
	}
	variants := []variant{
		{"default", func(*index.Ranking, float64) {}, []float64{0}},
		{"k1", func(r *index.Ranking, v float64) { r.K1 = v }, []float64{0.6, 0.9, 1.5, 2}},
		{"b", func(r *index.Ranking, v float64) { r.B = v }, []float64{0.2, 0.35, 0.65, 0.8}},
		{"symbol", func(r *index.Ranking, v float64) { r.Symbol = v }, []float64{2, 3.5, 7, 10}},
		{"signature", func(r *index.Ranking, v float64) { r.Signature = v }, []float64{1, 3, 4}},
		{"doc", func(r *index.Ranking, v float64) { r.Doc = v }, []float64{1, 1.5, 3, 4}},
		{"body", func(r *index.Ranking, v float64) { r.Body = v }, []float64{0.5, 0.75, 1.5}},
		{"path", func(r *index.Ranking, v float64) { r.Path = v }, []float64{0.5, 1, 2.5}},
		{"joined", func(r *index.Ranking, v float64) { r.Joined = v }, []float64{0.5, 1.5}},
		{"private", func(r *index.Ranking, v float64) { r.Private = v }, []float64{0.5, 0.6, 0.8, 0.9}},
		{"names", func(r *index.Ranking, v float64) { r.Names = v }, []float64{0, 0.1, 0.5}},
	}
	for _, vr := range variants {
		if *gridOnly != "" && !strings.Contains(","+*gridOnly+",", ","+vr.name+",") {
			continue
		}
		for _, v := range vr.vals {
			r := index.DefaultRanking()
			vr.set(&r, v)
			opts := Configs()[0].Options
			opts.Ranking = &r
			ix2, c2, err := OpenIndex(ctx, db, opts)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := s.Tune(ctx, ix2)
			_ = c2.Close()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%-9s %4.2f  go %s  js %s  all %s", vr.name, v, tr.Metrics["go-handwritten/dev"], tr.Metrics["js-handwritten/dev"], tr.Metrics["all/dev"])
		}
	}
}

var compare = flag.String("eval.compare", "", "rankings TestCompare sets against the default, ';'-separated, each 'param=value,…' (k1, b, symbol, signature, doc, body, path, joined, names, private)")

// TestCompare logs the rank of each development question of the
// hand-written sets under the default ranking and under each ranking of
// -eval.compare, the questions whose rank changed marked (development
// questions only).
func TestCompare(t *testing.T) {
	if *compare == "" {
		t.Skip("-eval.compare")
	}
	s := loadSuite(t)
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "eval.db")
	ix, closer, err := OpenIndex(ctx, db, Configs()[0].Options)
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	if err := s.IndexAll(ctx, ix); err != nil {
		t.Fatal(err)
	}
	specs := append([]string{""}, strings.Split(*compare, ";")...)
	ranks := map[string][]int{}
	var ids []string
	for _, spec := range specs {
		r := index.DefaultRanking()
		for _, kv := range strings.Split(spec, ",") {
			if kv == "" {
				continue
			}
			k, v, _ := strings.Cut(kv, "=")
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%q: %v", kv, err)
			}
			p := map[string]*float64{"k1": &r.K1, "b": &r.B, "symbol": &r.Symbol, "signature": &r.Signature, "doc": &r.Doc,
				"body": &r.Body, "path": &r.Path, "joined": &r.Joined, "names": &r.Names, "private": &r.Private}[k]
			if p == nil {
				t.Fatalf("%q: no such parameter", k)
			}
			*p = f
		}
		opts := Configs()[0].Options
		opts.Ranking = &r
		ix2, c2, err := OpenIndex(ctx, db, opts)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := s.Tune(ctx, ix2)
		_ = c2.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-30q go %s  js %s  all %s", spec, tr.Metrics["go-handwritten/dev"], tr.Metrics["js-handwritten/dev"], tr.Metrics["all/dev"])
		for _, res := range tr.Results {
			if _, ok := ranks[res.ID]; !ok {
				ids = append(ids, res.ID)
			}
			ranks[res.ID] = append(ranks[res.ID], res.Rank)
		}
	}
	var b strings.Builder
	for _, id := range ids {
		rs := ranks[id]
		changed := false
		for _, r := range rs {
			changed = changed || r != rs[0]
		}
		if !changed && !strings.Contains(id, "-cmd-") && !strings.Contains(id, "go-") {
			continue
		}
		mark := " "
		if changed {
			mark = "*"
		}
		fmt.Fprintf(&b, "%s %-28s %v\n", mark, id, rs)
	}
	t.Logf("ranks (0: not in the first %d), default first:\n%s", TopK, b.String())
}
