package index

import (
	"context"
	"fmt"
)

// rrfK is reciprocal rank fusion's constant (Cormack et al.): a chunk's
// fused score is the sum over the rankings of 1/(rrfK + rank).
const rrfK = 60

// vector ranks chunks by the cosine of their vectors with qvec, the first
// depth of them. Over at most BruteForceLimit chunks it compares every
// vector of the searched bases; over more, only those of the lexical
// ranking's first VectorCandidates (the vector side then reorders what
// BM25 found rather than finding more).
func (ix *Index) vector(ctx context.Context, s *searcher, qvec []float32, f filter, lex []scored, depth int) ([]scored, error) {
	var items []scored
	var buf []float32
	consider := func(k key, stype string, vec []byte) {
		if len(vec) != 4*len(qvec) {
			return // none, or another model's
		}
		if f.stype != 0 {
			st, _ := stypeOf(stype)
			if st != f.stype {
				return
			}
		}
		if f.files != nil && !f.files[k.file] {
			return
		}
		buf = decodeVector(buf, vec)
		items = append(items, scored{k, dot(qvec, buf)})
	}
	var q string
	var args []any
	if s.chunks <= int64(ix.opts.BruteForceLimit) {
		var cond string
		cond, args = s.kbIn("f.kb_id")
		q = `SELECT c.file_id, c.ord, c.source_type, c.vec FROM kb_chunks c JOIN kb_files f ON f.id = c.file_id
WHERE ` + cond + ` AND c.vec IS NOT NULL`
	} else {
		cands := lex[:min(len(lex), ix.opts.VectorCandidates)]
		if len(cands) == 0 {
			return nil, nil
		}
		ks := make([]key, len(cands))
		for i, c := range cands {
			ks[i] = c.key
		}
		var cond string
		cond, args = s.d.keys(ks)
		q = `SELECT file_id, ord, source_type, vec FROM kb_chunks WHERE ` + cond
	}
	rs, err := s.c.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reading vectors: %w", err)
	}
	defer rs.Close()
	for rs.Next() {
		var k key
		var ord int64
		var stype string
		var vec []byte
		if err := rs.Scan(&k.file, &ord, &stype, &vec); err != nil {
			return nil, fmt.Errorf("reading vectors: %w", err)
		}
		k.ord = int32(ord)
		consider(k, stype, vec)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("reading vectors: %w", err)
	}
	_ = rs.Close()
	return s.rank(ctx, items, depth)
}

// fuse merges the lexical and the vector rankings by reciprocal rank
// fusion and returns the first topK, scores normalized by the best
// possible (first in both: 2/(rrfK+1)).
func (s *searcher) fuse(ctx context.Context, lex, vec []scored, topK int) ([]scored, error) {
	fused := map[key]float64{}
	for _, list := range [][]scored{lex, vec} {
		for i, it := range list {
			fused[it.key] += 1 / float64(rrfK+i+1)
		}
	}
	best := 2 / float64(rrfK+1)
	items := make([]scored, 0, len(fused))
	for k, v := range fused {
		items = append(items, scored{k, v / best})
	}
	return s.rank(ctx, items, topK)
}
