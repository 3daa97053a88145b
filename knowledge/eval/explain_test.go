package eval

import (
	"cmp"
	"flag"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/knowledge/chunk"
	"github.com/agentgw/agentgw/knowledge/index"
)

var explain = flag.String("eval.explain", "", "log, for the development questions of the hand-written sets whose ids contain this text, each query term's part of the score of the answer and of the first hits (a re-computation of the default ranking, not the index's)")

// fieldsOf are a chunk's fields as the index weighs them (index's
// fieldTexts): symbol and kind, signature, doc (its first sentence
// twice) and a type's comments, body, path.
func fieldsOf(c chunk.Chunk) ([5][]string, bool) {
	p := c.Parts()
	sym := c.Symbol
	if p.Kind != "" {
		sym += "\n" + p.Kind
	}
	doc := p.Doc
	if p.Synopsis != "" {
		doc = p.Synopsis + "\n" + doc
	}
	if p.Comments != "" {
		doc += "\n" + p.Comments
	}
	var out [5][]string
	for i, s := range [5]string{sym, p.Signature, doc, p.Body, c.FileName} {
		out[i] = chunk.Tokens(s)
	}
	return out, p.Private || p.Deprecated
}

// TestExplain re-computes the default ranking's BM25F for the development
// questions that -eval.explain selects and logs, for the answer and the
// first three chunks, each term's part of the score (development
// questions only).
func TestExplain(t *testing.T) {
	if *explain == "" {
		t.Skip("-eval.explain")
	}
	s := loadSuite(t)
	type doc struct {
		c       chunk.Chunk
		tf      map[string][5]int
		dl      int
		private bool
	}
	docs := map[string][]doc{}
	df := map[string]map[string]int{}
	tokens := map[string]int{}
	for name, files := range s.corpora {
		df[name] = map[string]int{}
		for _, f := range files {
			for _, c := range f.Chunks {
				fs, private := fieldsOf(c)
				d := doc{c: c, tf: map[string][5]int{}, private: private}
				for i, ts := range fs {
					for _, tk := range ts {
						v := d.tf[tk]
						v[i]++
						d.tf[tk] = v
						d.dl++
					}
				}
				for tk := range d.tf {
					df[name][tk]++
				}
				tokens[name] += d.dl
				docs[name] = append(docs[name], d)
			}
		}
	}
	r := index.DefaultRanking()
	w := [5]float64{r.Symbol, r.Signature, r.Doc, r.Body, r.Path}
	k1, b, priv, names := r.K1, r.B, r.Private, r.Names
	for _, q := range s.questions {
		if q.half != Dev || q.set == SetGenerated || !strings.Contains(q.ID, *explain) {
			continue
		}
		corpus := setCorpus[q.set]
		n := float64(len(docs[corpus]))
		avgdl := float64(tokens[corpus]) / n
		terms := index.QueryTerms(chunk.Tokens, q.Q, r)
		score := func(d doc) (float64, []string) {
			var sum float64
			var parts []string
			for _, qt := range terms {
				f, ok := d.tf[qt.Term]
				if !ok {
					continue
				}
				dfv := float64(df[corpus][qt.Term])
				idf := math.Log(1 + (n-dfv+0.5)/(dfv+0.5))
				norm := 1 - b + b*float64(d.dl)/avgdl
				tf := w[0]*float64(f[0]) + w[1]*float64(f[1]) + w[4]*float64(f[4]) + (w[2]*float64(f[2])+w[3]*float64(f[3]))/norm
				sc := qt.Weight * idf * (k1 + 1) * tf / (tf + k1)
				if ntf := w[0]*float64(f[0]) + w[1]*float64(f[1]); ntf > 0 {
					sc += names * qt.Weight * idf * (k1 + 1) * ntf / (ntf + k1) // Ranking.Names
				}
				if d.private {
					sc *= priv
				}
				sum += sc
				parts = append(parts, fmt.Sprintf("%s=%.2f%v", qt.Term, sc, f))
			}
			return sum, parts
		}
		type ranked struct {
			d     doc
			score float64
			parts []string
		}
		var all []ranked
		for _, d := range docs[corpus] {
			if sc, parts := score(d); sc > 0 {
				all = append(all, ranked{d, sc, parts})
			}
		}
		slices.SortStableFunc(all, func(a, b ranked) int { return cmp.Compare(b.score, a.score) })
		var lines []string
		goldRank := 0
		for i, r := range all {
			gold := false
			for _, st := range q.sites {
				if r.d.c.FileName == st.file && r.d.c.StartLine <= st.line && st.line <= r.d.c.EndLine {
					gold = true
				}
			}
			if gold && goldRank == 0 {
				goldRank = i + 1
				lines = append(lines, fmt.Sprintf("  GOLD #%d %.2f %s:%d %s dl=%d priv=%v\n\t%s", i+1, r.score, r.d.c.FileName, r.d.c.StartLine, r.d.c.Symbol, r.d.dl, r.d.private, strings.Join(r.parts, " ")))
			} else if i < 4 {
				lines = append(lines, fmt.Sprintf("  #%d %.2f %s:%d %s dl=%d priv=%v\n\t%s", i+1, r.score, r.d.c.FileName, r.d.c.StartLine, r.d.c.Symbol, r.d.dl, r.d.private, strings.Join(r.parts, " ")))
			}
		}
		var ts []string
		for _, qt := range terms {
			ts = append(ts, fmt.Sprintf("%s(df %d)", qt.Term, df[corpus][qt.Term]))
		}
		t.Logf("%s %q gold rank %d (avgdl %.0f)\n  terms: %s\n%s", q.ID, q.Q, goldRank, avgdl, strings.Join(ts, " "), strings.Join(lines, "\n"))
	}
}
