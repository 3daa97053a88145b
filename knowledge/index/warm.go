package index

import (
	"context"
	"fmt"
	"time"

	"github.com/agentgw/agentgw/internal/dbconn"
)

// maxWarmTime bounds a warm-up of the postings cache.
const maxWarmTime = time.Minute

// warmStats is what a warm-up of the postings cache did.
type warmStats struct {
	kb       string
	version  int64
	terms    int // terms whose scores it cached
	postings int // their postings
	rows     int // kb_postings rows read
	stopped  bool
}

// maybeWarm starts a warm-up of the postings cache for base kb (row id)
// at version v, unless one was started for that version or a newer one
// (postingsCache.claimWarm). Writer.Flush calls it once its batches are
// committed, and, on SQLite, Search as it starts: a warm-up starts when
// this Index writes a version of a base, or a search first sees one
// (after a restart, a new Index, or a write by another process).
// A base of fewer chunks than the cache's document frequency has no term
// to warm: none is started.
func (ix *Index) maybeWarm(kb string, id, v, chunks int64) {
	if ix.cache == nil || ix.warmer == nil || chunks < ix.cacheMinDF || !ix.cache.claimWarm(id, v) {
		return
	}
	ix.warmer(func() {
		ctx, cancel := context.WithTimeout(context.Background(), maxWarmTime)
		defer cancel()
		_ = ix.warmLogged(ctx, kb, id, v)
	})
}

// Warm caches the scores of the commonest terms of knowledge base kb at
// the current version of its index (see warm), unless a warm-up of that
// version was started already, and returns when done. An indexer calls
// it as the gateway starts, so that the first searches of a base find
// its common words cached; writes (Writer.Flush) and searches of a
// version not warmed start a warm-up of their own, in the background.
func (ix *Index) Warm(ctx context.Context, kb string) error {
	if ix.cache == nil {
		return nil
	}
	var id, v, chunks int64
	err := ix.pool.QueryRow(ctx, `SELECT id, version, chunks FROM kb_bases WHERE name = ?`, kb).Scan(&id, &v, &chunks)
	if dbconn.IsNoRows(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("index: reading the version of %s: %w", kb, err)
	}
	if chunks < ix.cacheMinDF || !ix.cache.claimWarm(id, v) {
		return nil
	}
	return ix.warmLogged(ctx, kb, id, v)
}

// warmLogged is warm, reported to onWarm and logged (at debug level:
// a failed warm-up leaves the searches to read the terms themselves).
func (ix *Index) warmLogged(ctx context.Context, kb string, id, v int64) error {
	start := time.Now()
	st, err := ix.warm(ctx, kb, id, v)
	if ix.onWarm != nil {
		ix.onWarm(st, err)
	}
	if log := ix.opts.Logger; log != nil {
		if err != nil {
			log.Debug("knowledge index: warming the postings cache failed; searches read the terms it did not cache", "kb", kb, "version", v, "err", err)
		} else {
			log.Debug("knowledge index: postings cache warmed", "kb", kb, "version", v, "terms", st.terms,
				"postings", st.postings, "stopped", st.stopped, "ms", time.Since(start).Milliseconds())
		}
	}
	return err
}

// warm caches the scores of base kb's commonest terms (those at least
// cacheMinDF chunks hold, most first) at version v, as many as the room
// left in the postings cache holds, as a search would cache them
// (weight 1, both clauses): each term's postings read whole in one
// snapshot, scored, and put; a term a search is to read whole (want)
// comes before its own. It stops, without error, when that snapshot
// is not at version v or a newer version was seen (its scores would not
// be used), or when the file layout does not hold a file of the
// postings. Terms cached already, or being read by a search, are
// skipped; a search racing it waits for a term it is reading at most
// maxShareWait (sharedScores), and otherwise reads as without it.
func (ix *Index) warm(ctx context.Context, kb string, id, v int64) (warmStats, error) {
	st := warmStats{kb: kb, version: v}
	err := ix.snapshot(ctx, func(c dbconn.Conn) error {
		s, err := newSearcher(ctx, c, ix.dialect, []string{kb})
		if err != nil || s.chunks == 0 {
			return err
		}
		if len(s.kbIDs) != 1 || s.kbIDs[0] != id || s.version != v {
			st.stopped = true // moved on: the new version's own warm-up caches it
			return nil
		}
		s.params = ix.rank
		s.cache, s.cacheMinDF = ix.cache, ix.cacheMinDF
		return s.warm(ctx, &st, ix.onWarmTerm)
	})
	if err != nil {
		return st, fmt.Errorf("index: warming the postings cache of %s: %w", kb, err)
	}
	return st, nil
}

// warm is Index.warm in the searcher's snapshot; before (tests), when
// set, is called before each term is read.
func (s *searcher) warm(ctx context.Context, st *warmStats, before func()) error {
	kb, v := s.kbIDs[0], s.version
	layout := s.cache.layout(kb, v)
	if layout == nil {
		l, err := s.fileLayout(ctx)
		if err != nil {
			return err
		}
		layout = s.cache.putLayout(l)
	}
	terms, err := s.commonTerms(ctx, s.cache.room(), int64(len(layout.files)))
	if err != nil {
		return err
	}
	sc := s.scorer()
	for i := 0; ; {
		// What a search is to read whole first, then the commonest.
		t, ok := s.cache.nextWanted(kb, v)
		if !ok {
			if i == len(terms) {
				break
			}
			t, i = terms[i], i+1
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if s.cache.superseded(kb, v) {
			st.stopped = true
			return nil
		}
		k := s.cacheKey(t)
		if ts, _, lead := s.cache.getOrRead(k); ts != nil || !lead {
			continue // cached, or a search is reading it
		}
		if before != nil {
			before()
		}
		ts, err := s.scoresOf(ctx, t, sc, layout)
		if ts != nil {
			s.cache.put(k, ts)
			st.terms++
			st.postings += len(ts.ords)
		}
		s.cache.endRead(k)
		if err != nil {
			return err
		}
		if ts == nil {
			st.stopped = true // a layout not of this version: cache nothing
			return nil
		}
	}
	st.rows = s.stats.rows
	return nil
}

// commonTerms returns the terms of the one base searched that cacheMinDF
// chunks or more hold, most first, as many as room bytes of the postings
// cache hold (a term's scores estimated spread over min(df, files)
// files), each as a query's own word (weight 1).
func (s *searcher) commonTerms(ctx context.Context, room, files int64) ([]termInfo, error) {
	rs, err := s.c.Query(ctx, `SELECT term, df FROM kb_terms WHERE kb_id = ? AND df >= ? ORDER BY df DESC, term`,
		s.kbIDs[0], max(s.cacheMinDF, 1))
	if err != nil {
		return nil, fmt.Errorf("reading the commonest terms: %w", err)
	}
	defer rs.Close()
	var out []termInfo
	for rs.Next() {
		var term string
		var df int64
		if err := rs.Scan(&term, &df); err != nil {
			return nil, fmt.Errorf("reading the commonest terms: %w", err)
		}
		size := termScoresSize(min(df, files), df)
		if size > room || size > s.cache.max/8 {
			continue // a rarer term may fit (put keeps none over an eighth)
		}
		room -= size
		out = append(out, s.termInfo(qterm{term: term, weight: 1}, df))
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("reading the commonest terms: %w", err)
	}
	return out, nil
}
