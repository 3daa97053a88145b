package index

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// Ranking is the lexical ranking's parameters (see the package doc):
// BM25F's over a chunk's fields, and the weight of the terms a query's
// words make joined.
type Ranking struct {
	// K1 and B are BM25's: how fast a term's weight saturates, and how
	// much a chunk's length discounts its doc comment and body.
	K1, B float64
	// Symbol, Signature, Doc, Body and Path weigh a term's occurrences in
	// each field of a chunk: its symbol's name and kind, its
	// declaration's line, its doc comment, the rest of its text, its
	// file's path. The symbol, signature and path are short and not
	// normalized by length.
	Symbol, Signature, Doc, Body, Path float64
	// Joined weighs the terms a query's adjacent words make joined (read
	// header timeout: readheadertimeout), against 1 for its own terms; 0
	// looks for none.
	Joined float64
	// Expanded weighs the terms Options.Expand gives for a query's
	// terms, against 1 for its own; 0 looks for none.
	Expanded float64
	// Names weighs a second clause of each query term, saturated apart:
	// its occurrences in the symbol and signature fields only. BM25F
	// saturates a term's weighted frequency over all fields together,
	// so a doc comment repeating a word earns nearly what the name
	// holding it does; this clause gives the chunk whose name holds the
	// word up to Names times the term's weight more. 0 adds nothing.
	Names float64
	// Private, in [0, 1], multiplies the score of a chunk that declares
	// only private names (chunk.Parts): an unexported Go function, a
	// Python or JavaScript _helper, a private Java method. A question
	// is more often about an API than about its insides.
	Private float64
}

// DefaultRanking is the ranking an Index uses unless Options.Ranking says
// otherwise, its weights chosen on the development half of knowledge/eval
// (see the package doc).
func DefaultRanking() Ranking {
	return Ranking{K1: 1.2, B: 0.5, Symbol: 5, Signature: 2, Doc: 2, Body: 1, Path: 1.5, Joined: 1, Names: 0.25, Private: 0.7}
}

// rankParams is a Ranking as the scoring loop reads it.
type rankParams struct {
	k1, b    float64
	weights  [numFields]float64
	joined   float64
	expanded float64
	names    float64
	private  float64
}

func (r Ranking) params() rankParams {
	return rankParams{
		k1: r.K1, b: r.B,
		weights: [numFields]float64{
			fieldSymbol:    r.Symbol,
			fieldSignature: r.Signature,
			fieldDoc:       r.Doc,
			fieldBody:      r.Body,
			fieldPath:      r.Path,
		},
		joined:   r.Joined,
		expanded: r.Expanded,
		names:    r.Names,
		private:  r.Private,
	}
}

// check reports a Ranking that cannot rank.
func (r Ranking) check() error {
	for _, v := range []float64{r.K1, r.B, r.Symbol, r.Signature, r.Doc, r.Body, r.Path, r.Joined, r.Expanded, r.Names, r.Private} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("ranking %+v: a parameter is negative or not a number", r)
		}
	}
	if r.K1 == 0 || r.B > 1 || r.Private > 1 || r.Symbol+r.Signature+r.Doc+r.Body+r.Path == 0 {
		return fmt.Errorf("ranking %+v: K1 must be positive, B and Private at most 1, a field's weight positive", r)
	}
	return nil
}

// tf is the weighted frequency of a posting's term, BM25F's: the short
// fields' counts as they are, the doc comment's and body's normalized by
// the chunk's length (norm: 1 - b + b·dl/avgdl).
func (r *rankParams) tf(p *posting, norm float64) float64 {
	w := &r.weights
	return w[fieldSymbol]*float64(p.tf[fieldSymbol]) + w[fieldSignature]*float64(p.tf[fieldSignature]) +
		w[fieldPath]*float64(p.tf[fieldPath]) +
		(w[fieldDoc]*float64(p.tf[fieldDoc])+w[fieldBody]*float64(p.tf[fieldBody]))/norm
}

// namesTF is tf over the symbol and signature fields only.
func (r *rankParams) namesTF(p *posting) float64 {
	w := &r.weights
	return w[fieldSymbol]*float64(p.tf[fieldSymbol]) + w[fieldSignature]*float64(p.tf[fieldSignature])
}

// seekCost is what looking up one file's postings of a term costs, in
// postings read in order.
const seekCost = 16

// qterm is a term of a query and its weight; names limits it to the
// chunks' symbol and signature fields (an expansion, Options.Expand).
type qterm struct {
	term   string
	weight float64
	names  bool
}

// termInfo is a query term's statistics.
type termInfo struct {
	term string
	df   int64
	w    float64 // weight·idf·(k1+1): the most one clause of the term adds
	ub   float64 // the most the term adds to a chunk's score: w·(1+names)
	// names: only the symbol and signature fields count (qterm.names).
	names bool
}

// lexical ranks the chunks by BM25 and returns the first depth of them
// with their scores, and the most any chunk could score (the sum of the
// terms' upper bounds), which normalizes a score into [0, 1).
//
// It is exact top-k with MaxScore pruning: terms are taken rarest first;
// once the depth-th best score so far exceeds what the remaining terms can
// add together, no chunk not seen yet can enter the ranking, so the
// remaining (common, long) postings are read only for the files of the
// candidates still able to make it, and candidates that cannot are
// dropped as the bar rises.
func (s *searcher) lexical(ctx context.Context, terms []qterm, f filter, depth int) ([]scored, float64, error) {
	infos, err := s.termInfos(ctx, terms)
	if err != nil || len(infos) == 0 {
		return nil, 0, err
	}
	sc := s.scorer()
	// The scores of the terms in the postings cache, and of the terms
	// many chunks hold not there yet, read whole to be cached; on
	// Postgres, the rarest terms' rows too, whose postings are short:
	// each would be read whole anyway. They are read together, in one
	// statement: on Postgres a statement is a round trip (on SQLite it
	// is a call, and reading the rarest apart keeps no rows).
	scores := make([]*termScores, len(infos))
	pre := map[string][]fileRows{}
	read := map[string]*termScores{} // the terms read whole now: nil for rows kept in pre
	// On SQLite, the common terms not cached are cached when the loop
	// reads them whole (not for the candidates only).
	toCache := make([]bool, len(infos))
	var layout *fileLayout
	if s.cache != nil {
		layout = s.cache.layout(s.kbIDs[0], s.version)
	}
	for i, t := range infos {
		if ts, ok := s.cache.get(s.cacheKey(t)); ok && ts.layout == layout {
			scores[i] = ts
			s.stats.cached++
		} else if t.df >= s.cacheMinDF && s.cache.fits(t.df) {
			if layout == nil {
				l, err := s.fileLayout(ctx)
				if err != nil {
					return nil, 0, err
				}
				layout = s.cache.putLayout(l)
			}
			if s.d.pg {
				read[t.term] = newTermScores(layout, t)
			} else {
				toCache[i] = true
			}
		}
	}
	// The terms this search is to read whole, for a warm-up running to
	// read first (sharedScores shares them).
	for i, t := range infos {
		if toCache[i] {
			s.cache.want(s.cacheKey(t), t)
		}
	}
	for i, sum := 0, int64(0); s.d.pg && i < len(infos) && sum+infos[i].df <= prefetchPostings; i++ {
		if _, ok := read[infos[i].term]; !ok && scores[i] == nil {
			sum += infos[i].df
			read[infos[i].term] = nil
			pre[infos[i].term] = nil // read, and none (a base searched holds none)
		}
	}
	if len(read) > 0 {
		readErr := map[string]error{} // a term's first
		var terms []termInfo
		for _, t := range infos {
			if _, ok := read[t.term]; ok {
				terms = append(terms, t)
			}
		}
		err := s.postingsOf(ctx, terms, func(t termInfo, file int64, post []byte) error {
			ts := read[t.term]
			if ts == nil {
				pre[t.term] = append(pre[t.term], fileRows{file, slices.Clone(post)})
				return nil
			}
			if readErr[t.term] == nil {
				readErr[t.term] = ts.add(file, post, sc, t)
			}
			return nil
		})
		if err != nil {
			return nil, 0, err
		}
		for i, t := range infos {
			switch ts, err := read[t.term], readErr[t.term]; {
			case ts == nil:
			case errors.Is(err, errNoSlot):
				// Not cached: its rows are read again in the loop.
			case err != nil:
				return nil, 0, fmt.Errorf("the postings of %q: %w", t.term, err)
			default:
				scores[i] = ts
				s.cache.put(s.cacheKey(t), ts)
			}
		}
	}
	rem := make([]float64, len(infos)+1)
	for i := len(infos) - 1; i >= 0; i-- {
		rem[i] = rem[i+1] + infos[i].ub
	}
	acc := newAccum(int(min(infos[0].df, 4096)), layout)
	pruning := false
	bar := 0.0 // the depth-th score when last looked for: at most the depth-th's now
	barAt := -1
	for i, t := range infos {
		// No chunk's score over what the terms left can add: no
		// depth-th's either, and no need to look for it. Nor when the
		// depth-th score last found, with what the terms since added at
		// most, is not over it.
		if acc.n >= depth && (pruning || acc.max > rem[i]) {
			if !pruning && (barAt < 0 || bar+rem[barAt]-rem[i] > rem[i]) {
				bar, barAt = acc.kth(depth), i
				pruning = bar > rem[i]
			}
			if pruning {
				// One pass over the scores drops the chunks under the
				// bar and finds the depth-th score of those left, the
				// next term's bar.
				bar = acc.prune(bar, rem[i], depth)
			}
		}
		if ts := scores[i]; ts != nil {
			acc.addScores(ts, f, pruning)
			continue
		}
		var err error
		row := func(file int64, post []byte) {
			if err != nil {
				return
			}
			var fs *fileScores
			if pruning {
				if fs = acc.liveFile(file); fs == nil {
					return
				}
			} else if f.files != nil && !f.files[file] {
				return
			}
			it := postingIter{b: post}
			var p posting
			for {
				var ok bool
				if ok, err = it.next(&p); !ok {
					if err != nil {
						err = fmt.Errorf("the postings of %q in file %d: %w", t.term, file, err)
					}
					return
				}
				s.stats.postings++
				if pruning {
					if p.ord < len(fs.scores) && fs.scores[p.ord] >= 0 {
						if v, ok := sc.of(t, &p); ok {
							acc.addSeen(fs, p.ord, v)
						}
					}
					continue
				}
				if f.stype != 0 && f.stype != p.stype {
					continue
				}
				if v, ok := sc.of(t, &p); ok {
					if fs == nil {
						fs = acc.of(file)
					}
					acc.add(fs, p.ord, v)
				}
			}
		}
		switch rows, ok := pre[t.term]; {
		case ok:
			for _, fr := range rows {
				row(fr.file, fr.post)
			}
		// On SQLite a seek per candidate file costs about what reading a
		// few rows of the term's postings in order does: with many
		// candidates, read them all and skip the others. Postgres reads
		// the term's rows and keeps the candidates' (dialect.fileSet), so
		// that only those cross the connection, all in one statement.
		case pruning && (s.d.pg || len(acc.live)*seekCost < int(t.df)):
			files := acc.liveFiles()
			batch := batchRows
			if s.d.pg {
				batch = max(len(files), 1)
			}
			for part := range slices.Chunk(files, batch) {
				if err := s.postings(ctx, t.term, part, row); err != nil {
					return nil, 0, err
				}
			}
		case toCache[i]:
			ts, err := s.sharedScores(ctx, t, sc, layout)
			if err != nil {
				return nil, 0, err
			}
			if ts != nil {
				acc.addScores(ts, f, pruning)
			} else if err := s.postings(ctx, t.term, nil, row); err != nil { // a layout not of the postings' version
				return nil, 0, err
			}
		default:
			if err := s.postings(ctx, t.term, nil, row); err != nil {
				return nil, 0, err
			}
		}
		if err != nil {
			return nil, 0, err
		}
	}
	// Those under the depth-th score can be neither in the ranking nor
	// tied with its last: rank sorts only the others (a query of words
	// every chunk holds scores them all).
	items := acc.items(acc.kth(depth))
	s.stats.scanned += acc.scanned
	ranked, err := s.rank(ctx, items, depth)
	return ranked, rem[0], err
}

// maxShareWait bounds how long a search waits for another search or a
// warm-up reading the scores of a term it needs before reading them
// itself.
const maxShareWait = 200 * time.Millisecond

// sharedScores returns the scores of t, numbered by layout: cached, or
// read whole and cached, or, when another search or a warm-up is reading
// them, cached by it (waiting at most maxShareWait for it): a common term
// is read once, not by each of the first searches of a version naming it
// and by the warm-up. Nil when layout lacks a file of them.
func (s *searcher) sharedScores(ctx context.Context, t termInfo, sc scorer, layout *fileLayout) (*termScores, error) {
	k := s.cacheKey(t)
	var timeout <-chan time.Time
	for {
		ts, wait, lead := s.cache.getOrRead(k)
		switch {
		case ts != nil && ts.layout == layout:
			s.stats.cached++
			return ts, nil
		case ts != nil:
			return s.scoresOf(ctx, t, sc, layout)
		case lead:
			ts, err := s.scoresOf(ctx, t, sc, layout)
			if ts != nil {
				s.cache.put(k, ts)
			}
			s.cache.endRead(k)
			return ts, err
		}
		if timeout == nil {
			timeout = time.After(maxShareWait)
		}
		select {
		case <-wait:
		case <-timeout:
			return s.scoresOf(ctx, t, sc, layout)
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the scores of %q: %w", t.term, ctx.Err())
		}
	}
}

// scoresOf reads the postings of t whole and returns their scores,
// numbered by layout; nil when layout lacks a file of them (a layout not
// of the postings' version).
func (s *searcher) scoresOf(ctx context.Context, t termInfo, sc scorer, layout *fileLayout) (*termScores, error) {
	ts := newTermScores(layout, t)
	var addErr error
	err := s.postings(ctx, t.term, nil, func(file int64, post []byte) {
		if addErr == nil {
			addErr = ts.add(file, post, sc, t)
		}
	})
	switch {
	case err != nil:
		return nil, err
	case errors.Is(addErr, errNoSlot):
		return nil, nil
	case addErr != nil:
		return nil, fmt.Errorf("the postings of %q: %w", t.term, addErr)
	}
	s.stats.postings += len(ts.ords)
	return ts, nil
}

// fileLayout reads the file layout of the one base searched.
func (s *searcher) fileLayout(ctx context.Context) (*fileLayout, error) {
	rs, err := s.c.Query(ctx, `SELECT id, chunks FROM kb_files WHERE kb_id = ? ORDER BY id`, s.kbIDs[0])
	if err != nil {
		return nil, fmt.Errorf("reading the files: %w", err)
	}
	defer rs.Close()
	var files []int64
	var chunks []int32
	for rs.Next() {
		var id, n int64
		if err := rs.Scan(&id, &n); err != nil {
			return nil, fmt.Errorf("reading the files: %w", err)
		}
		files = append(files, id)
		chunks = append(chunks, int32(min(n, math.MaxInt32)))
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("reading the files: %w", err)
	}
	return newFileLayout(s.kbIDs[0], s.version, files, chunks), nil
}

// cacheKey is t's key in the postings cache.
func (s *searcher) cacheKey(t termInfo) cacheKey {
	return cacheKey{s.kbIDs[0], s.version, t.term, t.w, t.names}
}

// scorer computes a posting's part of a chunk's score.
type scorer struct {
	r     *rankParams
	avgdl float64
}

func (s *searcher) scorer() scorer {
	return scorer{&s.params, max(float64(s.tokens)/float64(s.chunks), 1)}
}

// of is what the posting p of term t adds to its chunk's score, false
// when it adds nothing (an expansion found in no name).
func (sc scorer) of(t termInfo, p *posting) (float64, bool) {
	r := sc.r
	var v float64
	if t.names {
		tf := r.namesTF(p)
		if tf == 0 {
			return 0, false
		}
		v = t.w * tf / (tf + r.k1)
	} else {
		tf := r.tf(p, 1-r.b+r.b*float64(p.dl)/sc.avgdl)
		v = t.w * tf / (tf + r.k1)
		if r.names > 0 {
			if ntf := r.namesTF(p); ntf > 0 {
				v += r.names * t.w * ntf / (ntf + r.k1)
			}
		}
	}
	if p.private {
		v *= r.private
	}
	return v, true
}

// termInfos reads the document frequencies of terms in the searched bases
// and returns those found, rarest first (then by term), at most
// maxQueryTerms.
func (s *searcher) termInfos(ctx context.Context, terms []qterm) ([]termInfo, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	byTerm := make(map[string]qterm, len(terms))
	names := make([]string, len(terms))
	for i, t := range terms {
		byTerm[t.term], names[i] = t, t.term
	}
	kbCond, args := s.kbIn("kb_id")
	termCond, targs := s.d.strs("term", names)
	rs, err := s.c.Query(ctx, `SELECT term, CAST(SUM(df) AS BIGINT) FROM kb_terms WHERE `+kbCond+
		` AND `+termCond+` GROUP BY term`, append(args, targs...)...)
	if err != nil {
		return nil, fmt.Errorf("reading document frequencies: %w", err)
	}
	defer rs.Close()
	var out []termInfo
	for rs.Next() {
		var t termInfo
		if err := rs.Scan(&t.term, &t.df); err != nil {
			return nil, fmt.Errorf("reading document frequencies: %w", err)
		}
		if t.df <= 0 {
			continue
		}
		out = append(out, s.termInfo(byTerm[t.term], t.df))
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("reading document frequencies: %w", err)
	}
	slices.SortFunc(out, func(a, b termInfo) int {
		if c := cmp.Compare(a.df, b.df); c != 0 {
			return c
		}
		return cmp.Compare(a.term, b.term)
	})
	return out[:min(len(out), maxQueryTerms)], nil
}

// termInfo is the statistics of the query term q, which df chunks of the
// searched bases hold (df > 0).
func (s *searcher) termInfo(q qterm, df int64) termInfo {
	t := termInfo{term: q.term, df: df, names: q.names}
	n, d := float64(s.chunks), float64(df)
	t.w = q.weight * math.Log(1+(n-d+0.5)/(d+0.5)) * (s.params.k1 + 1)
	t.ub = t.w
	if !q.names {
		t.ub += s.params.names * t.w // the names clause (Ranking.Names)
	}
	return t
}

// prefetchPostings bounds the postings of the rarest terms of a query read
// in one statement.
const prefetchPostings = 10000

// fileRows is a kb_postings row: a file's postings of a term.
type fileRows struct {
	file int64
	post []byte
}

// postingsOf calls row with each postings row of terms in the searched
// bases, in one statement. The blob passed is valid only during the
// call; row's error stops the reading and is returned.
func (s *searcher) postingsOf(ctx context.Context, terms []termInfo, row func(t termInfo, file int64, post []byte) error) error {
	byTerm := make(map[string]termInfo, len(terms))
	names := make([]string, len(terms))
	for i, t := range terms {
		byTerm[t.term], names[i] = t, t.term
	}
	kbCond, args := s.kbIn("kb_id")
	termCond, targs := s.d.strs("term", names)
	rs, err := s.c.Query(ctx, `SELECT term, file_id, post FROM kb_postings WHERE `+kbCond+` AND `+termCond, append(args, targs...)...)
	if err != nil {
		return fmt.Errorf("reading the postings of %d terms: %w", len(terms), err)
	}
	defer rs.Close()
	s.stats.statements++
	// The blob is read in the driver's memory, not copied.
	var raw sql.RawBytes
	var driver pgtype.DriverBytes
	var term string
	var file int64
	dest := []any{&term, &file, &raw}
	if s.d.pg {
		dest[2] = &driver
	}
	for rs.Next() {
		if err := rs.Scan(dest...); err != nil {
			return fmt.Errorf("reading the postings of %d terms: %w", len(terms), err)
		}
		post := []byte(raw)
		if s.d.pg {
			post = driver
		}
		s.stats.rows++
		s.stats.bytes += len(post)
		if err := row(byTerm[term], file, post); err != nil {
			return err
		}
	}
	if err := rs.Err(); err != nil {
		return fmt.Errorf("reading the postings of %d terms: %w", len(terms), err)
	}
	return nil
}

// postings calls row with each postings row of term in the searched
// bases, in the files listed (every file when files is nil). The blob
// passed is valid only during the call.
func (s *searcher) postings(ctx context.Context, term string, files []int64, row func(file int64, post []byte)) error {
	kbCond, args := s.kbIn("kb_id")
	q := `SELECT file_id, post FROM kb_postings WHERE ` + kbCond + ` AND term = ?`
	args = append(args, term)
	if files != nil {
		fileCond, fargs := s.d.fileSet("file_id", files)
		q += ` AND ` + fileCond
		args = append(args, fargs...)
	}
	rs, err := s.c.Query(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("reading the postings of %q: %w", term, err)
	}
	defer rs.Close()
	s.stats.statements++
	// The blob is read in the driver's memory, not copied: row reads it
	// before the next row is.
	var raw sql.RawBytes
	var driver pgtype.DriverBytes
	var file int64
	dest := []any{&file, &raw}
	if s.d.pg {
		dest[1] = &driver
	}
	for rs.Next() {
		if err := rs.Scan(dest...); err != nil {
			return fmt.Errorf("reading the postings of %q: %w", term, err)
		}
		post := []byte(raw)
		if s.d.pg {
			post = driver
		}
		s.stats.rows++
		s.stats.bytes += len(post)
		row(file, post)
	}
	if err := rs.Err(); err != nil {
		return fmt.Errorf("reading the postings of %q: %w", term, err)
	}
	return nil
}
