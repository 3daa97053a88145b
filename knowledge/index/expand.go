package index

import (
	"cmp"
	"math"
	"slices"

	"github.com/agentgw/agentgw/knowledge/chunk"
)

// LearnExpansions learns a vocabulary bridge from chunks, for
// Options.Expand: over the declarations among them (chunks with a symbol
// and a doc comment, chunk.Parts), it counts how often each term of a doc
// comment and each term of the symbol's name are in the same declaration,
// and keeps for each doc term the perWord name terms of highest pointwise
// mutual information among those seen together at least minCount times
// (and more often than chance). With whole, a declaration's words are
// those of all its text (doc, signature, comments, code) rather than its
// doc comment's, and chunks without a doc comment count too. Terms are
// tok's.
//
// Experimental (issue 30): measured in knowledge/eval's README, where it
// moved little, because the words a question lacks are mostly not in the
// corpus's doc comments at all; knowledge/kb does not use it, and nothing
// stores the table.
func LearnExpansions(chunks []chunk.Chunk, tok Tokenizer, minCount, perWord int, whole bool) map[string][]string {
	type pair struct{ d, i string }
	nd, ni, nPair := map[string]int{}, map[string]int{}, map[pair]int{}
	n := 0
	for _, c := range chunks {
		if c.Symbol == "" {
			continue
		}
		words := c.Text
		if !whole {
			if words = c.Parts().Doc; words == "" {
				continue
			}
		}
		n++
		ds, is := termSet(tok(words)), termSet(tok(c.Symbol))
		for d := range ds {
			nd[d]++
		}
		for i := range is {
			ni[i]++
			for d := range ds {
				if d != i {
					nPair[pair{d, i}]++
				}
			}
		}
	}
	type cand struct {
		i   string
		pmi float64
	}
	byWord := map[string][]cand{}
	for pr, c := range nPair {
		if c < minCount {
			continue
		}
		pmi := math.Log(float64(c) * float64(n) / (float64(nd[pr.d]) * float64(ni[pr.i])))
		if pmi > 0 {
			byWord[pr.d] = append(byWord[pr.d], cand{pr.i, pmi})
		}
	}
	out := make(map[string][]string, len(byWord))
	for d, cs := range byWord {
		slices.SortFunc(cs, func(a, b cand) int {
			return cmp.Or(cmp.Compare(b.pmi, a.pmi), cmp.Compare(a.i, b.i))
		})
		for _, c := range cs[:min(perWord, len(cs))] {
			out[d] = append(out[d], c.i)
		}
	}
	return out
}

func termSet(ts []string) map[string]bool {
	m := make(map[string]bool, len(ts))
	for _, t := range ts {
		m[t] = true
	}
	return m
}
