package index

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/internal/dbconn"
	"github.com/agentgw/agentgw/knowledge/chunk"
)

// Bounds of a Query.
const (
	// DefaultTopK is the hits of a query that asks for none.
	DefaultTopK = 10
	// MaxTopK bounds the hits of a query.
	MaxTopK = 100
	// maxQueryTerms bounds the terms a query is ranked by: the rarest
	// ones are kept. maxLookupTerms bounds the distinct terms looked up.
	maxQueryTerms  = 64
	maxLookupTerms = 512
	// maxTies bounds the chunks tied at the cut of a ranking that are
	// ordered by name rather than by row id.
	maxTies = 1000
)

// ErrBadQuery is wrapped by the errors of a query that cannot be run as
// it is (no knowledge base, a bad path glob, an unknown source type).
var ErrBadQuery = errors.New("bad knowledge query")

// Query is a search of the index.
type Query struct {
	// KB are the knowledge bases searched, at least one; ids not indexed
	// are skipped. Their chunks are ranked together, by the statistics of
	// all of them.
	KB []string
	// Text is the query, any text: it is only tokenized, never parsed.
	Text string
	// TopK is the most hits returned (default DefaultTopK, at most
	// MaxTopK).
	TopK int
	// PathGlobs keep the chunks of files matching any of them (see
	// compileGlob: "/"-separated path.Match segments, "**" for any
	// number of directories, a glob without "/" matching base names).
	PathGlobs []string
	// SourceType keeps only chunks of that type, chunk.TypeCode or
	// chunk.TypeDoc; "" keeps both.
	SourceType string
}

// Hit is a chunk found by a query.
type Hit struct {
	// KB is the knowledge base of the chunk.
	KB string
	// Score is in [0, 1], higher better. Lexical only, it is the chunk's
	// BM25 score over the most any chunk could score for the query's
	// terms; hybrid, its reciprocal rank fusion score over the best
	// possible (first in both rankings).
	Score float64
	// Chunk is the chunk, FileName included.
	Chunk chunk.Chunk
}

// key names a chunk: its file's row and its ordinal in the file.
type key struct {
	file int64
	ord  int32
}

// scored is a chunk and its score in one ranking.
type scored struct {
	key
	score float64
}

// filter is what a query keeps.
type filter struct {
	stype byte           // 0: any
	files map[int64]bool // nil: every file
}

func (f filter) keep(file int64, stype byte) bool {
	return (f.stype == 0 || f.stype == stype) && (f.files == nil || f.files[file])
}

// Search returns the chunks of q.KB that best answer q.Text, best first:
// by BM25 without an Embedder, else by reciprocal rank fusion (k = 60) of
// the BM25 ranking and the vector ranking (see the package doc). Chunks
// of one score are ordered by knowledge base, file name and position.
func (ix *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	if len(q.KB) == 0 {
		return nil, fmt.Errorf("index: %w: no knowledge base to search", ErrBadQuery)
	}
	topK := q.TopK
	if topK <= 0 {
		topK = DefaultTopK
	}
	topK = min(topK, MaxTopK)
	var f filter
	if q.SourceType != "" {
		st, err := stypeOf(q.SourceType)
		if err != nil {
			return nil, fmt.Errorf("index: %w: %w", ErrBadQuery, err)
		}
		f.stype = st
	}
	if err := ix.checkGlobBounds(q.PathGlobs); err != nil {
		return nil, fmt.Errorf("index: %w: %w", ErrBadQuery, err)
	}
	gs, err := compileGlobs(q.PathGlobs)
	if err != nil {
		return nil, fmt.Errorf("index: %w: %w", ErrBadQuery, err)
	}
	terms := queryTerms(ix.opts.Tokenizer, q.Text, ix.rank.joined)
	if ix.opts.Expand != nil && ix.rank.expanded > 0 {
		terms = expandTerms(terms, ix.opts.Expand, ix.rank.expanded)
	}
	qvec := ix.queryVector(ctx, q.Text) // nil: lexical only
	var hits []Hit
	err = ix.snapshot(ctx, func(c dbconn.Conn) error {
		s, err := newSearcher(ctx, c, ix.dialect, q.KB)
		if err != nil || s.chunks == 0 {
			return err
		}
		if len(s.kbIDs) == 1 && !ix.dialect.pg {
			// A version of the base not warmed yet: the warm-up starts
			// now, beside this search, which shares with it the terms
			// both read whole (sharedScores). Not on PostgreSQL, where
			// a search reads all the terms it lacks in one statement:
			// a warm-up beside it would read them again, and its
			// backend compete with the search's for the CPU.
			ix.maybeWarm(s.kbName[s.kbIDs[0]], s.kbIDs[0], s.version, s.chunks)
		}
		if ix.onSearch != nil {
			defer func() { ix.onSearch(s.stats) }()
		}
		s.params = ix.rank
		if len(s.kbIDs) == 1 {
			s.cache, s.cacheMinDF = ix.cache, ix.cacheMinDF
		}
		if len(gs) > 0 {
			if f.files, err = s.matchFiles(ctx, gs, ix.onFile); err != nil {
				return err
			}
		}
		// A ranking as deep as the hits wanted, deeper when chunks of
		// one text were collapsed into one hit and made it short.
		for want := topK; ; want = min(2*want, maxCollapseDepth) {
			depth := want
			if qvec != nil {
				depth = max(want, ix.opts.VectorCandidates)
			}
			lex, norm, err := s.lexical(ctx, terms, f, depth)
			if err != nil {
				return err
			}
			var ranked []scored
			var vec []scored
			if qvec != nil {
				if vec, err = ix.vector(ctx, s, qvec, f, lex, depth); err != nil {
					return err
				}
			}
			if len(vec) == 0 {
				ranked = lex[:min(want, len(lex))]
				for i := range ranked {
					ranked[i].score /= norm
				}
			} else {
				if ranked, err = s.fuse(ctx, lex, vec, want); err != nil {
					return err
				}
			}
			all, err := s.load(ctx, ranked)
			if err != nil {
				return err
			}
			hits = collapse(all, topK)
			if len(hits) == topK || len(ranked) < want || want == maxCollapseDepth {
				return nil
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("index: searching %s: %w", strings.Join(q.KB, ", "), err)
	}
	return hits, nil
}

// maxCollapseDepth bounds how deep a ranking goes to find TopK hits of
// distinct texts.
const maxCollapseDepth = 4 * MaxTopK

// collapse keeps the first hit of each text, at most n.
func collapse(hits []Hit, n int) []Hit {
	seen := make(map[string]bool, len(hits))
	out := hits[:0]
	for _, h := range hits {
		if seen[h.Chunk.Text] {
			continue
		}
		seen[h.Chunk.Text] = true
		out = append(out, h)
		if len(out) == n {
			break
		}
	}
	return out
}

// QueryTerm is a term a search looks up for a query, with its weight.
type QueryTerm struct {
	Term   string
	Weight float64
}

// QueryTerms are the terms a search of text looks up, as Search makes
// them with tok and r's Joined weight: for tools that explain a ranking
// (knowledge/eval), so that they score the terms the index does.
func QueryTerms(tok Tokenizer, text string, r Ranking) []QueryTerm {
	qts := queryTerms(tok, text, r.Joined)
	out := make([]QueryTerm, len(qts))
	for i, qt := range qts {
		out[i] = QueryTerm{qt.term, qt.weight}
	}
	return out
}

// queryTerms are the distinct terms of a query text, in order, weighing
// 1, then the terms its adjacent words make joined, weighing joined:
// "read header timeout" also looks for readheadertimeout, readheader,
// headertimeout and their snake_case forms, the identifiers a developer
// describes in words. Only words that are a term of their own are joined
// (not stop words, not identifiers already split). At most
// maxLookupTerms.
func queryTerms(tok Tokenizer, text string, joined float64) []qterm {
	seen := map[string]bool{}
	var out []qterm
	add := func(t string, w float64) {
		if t == "" || len(t) > maxTermLen || seen[t] || len(out) == maxLookupTerms {
			return
		}
		seen[t] = true
		out = append(out, qterm{term: t, weight: w})
	}
	for _, t := range tok(text) {
		add(t, 1)
	}
	if joined <= 0 {
		return out
	}
	var words []string // the query's plain words, "" between runs
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !isWordRune(r) }) {
		ts := tok(w)
		if len(ts) == 1 && strings.ToLower(w) == ts[0] {
			words = append(words, ts[0])
		} else {
			words = append(words, "")
		}
	}
	for n := 2; n <= 3; n++ {
		for i := 0; i+n <= len(words); i++ {
			run := words[i : i+n]
			if slices.Contains(run, "") {
				continue
			}
			add(strings.Join(run, ""), joined)
			add(strings.Join(run, "_"), joined)
		}
	}
	return out
}

// Bounds of a query's expansions (Options.Expand).
const (
	maxExpansionsPerTerm = 3
	maxExpansions        = 12
)

// expandTerms appends to terms the expansions of its terms of weight 1,
// weighing w and counted in the symbol and signature fields only: at most maxExpansionsPerTerm a term, maxExpansions in all,
// none a term already there.
func expandTerms(terms []qterm, expand func(string) []string, w float64) []qterm {
	seen := make(map[string]bool, len(terms))
	for _, t := range terms {
		seen[t.term] = true
	}
	n := len(terms)
	added := 0
	for _, t := range terms[:n] {
		if t.weight != 1 {
			continue
		}
		per := 0
		for _, e := range expand(t.term) {
			if added == maxExpansions || len(terms) == maxLookupTerms {
				return terms
			}
			if per == maxExpansionsPerTerm {
				break
			}
			if e == "" || len(e) > maxTermLen || seen[e] {
				continue
			}
			seen[e] = true
			terms = append(terms, qterm{e, w, true})
			per++
			added++
		}
	}
	return terms
}

// searcher runs one search's statements in its snapshot.
type searcher struct {
	c     dbconn.Conn
	d     dialect
	kbIDs []int64 // of the knowledge bases searched
	// version is the postings' version of the one base searched
	// (kb_bases.version), for the cache; cache is nil when more are.
	version    int64
	cache      *postingsCache
	cacheMinDF int64
	kbName     map[int64]string
	chunks     int64 // in them all
	tokens     int64
	// names caches file rows' names: file id to [kb, file name].
	names  map[int64][2]string
	params rankParams
	stats  searchStats
}

// searchStats counts what a search's lexical ranking read: what its cost
// follows, deterministic where the time is not (BenchmarkSearch100k
// reports it).
type searchStats struct {
	statements int // postings statements run
	rows       int // kb_postings rows read
	bytes      int // of their blobs
	postings   int // postings decoded
	cached     int // terms whose scores came from the postings cache
	scanned    int // scores examined for the depth-th and to prune (accum.scanned)
}

func (a *searchStats) add(b searchStats) {
	a.statements += b.statements
	a.rows += b.rows
	a.bytes += b.bytes
	a.postings += b.postings
	a.cached += b.cached
	a.scanned += b.scanned
}

func newSearcher(ctx context.Context, c dbconn.Conn, d dialect, kbs []string) (*searcher, error) {
	s := &searcher{c: c, d: d, kbName: map[int64]string{}, names: map[int64][2]string{}}
	cond, args := d.strs("name", kbs)
	rs, err := c.Query(ctx, `SELECT id, name, chunks, tokens, version FROM kb_bases WHERE `+cond, args...)
	if err != nil {
		return nil, fmt.Errorf("reading the knowledge bases: %w", err)
	}
	defer rs.Close()
	for rs.Next() {
		var id, chunks, tokens int64
		var name string
		if err := rs.Scan(&id, &name, &chunks, &tokens, &s.version); err != nil {
			return nil, fmt.Errorf("reading the knowledge bases: %w", err)
		}
		s.kbIDs = append(s.kbIDs, id)
		s.kbName[id] = name
		s.chunks += chunks
		s.tokens += tokens
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("reading the knowledge bases: %w", err)
	}
	return s, nil
}

// kbIn is "col IN (…)" for the searched bases, and its arguments.
func (s *searcher) kbIn(col string) (string, []any) {
	return s.d.ints(col, s.kbIDs)
}

// matchFiles returns the files of the searched bases that gs keep. It
// stops, with the context's error, as soon as ctx is done (the caller
// left); onFile, when set, is called for each file examined.
func (s *searcher) matchFiles(ctx context.Context, gs globs, onFile func()) (map[int64]bool, error) {
	cond, args := s.kbIn("kb_id")
	rs, err := s.c.Query(ctx, `SELECT id, name FROM kb_files WHERE `+cond, args...)
	if err != nil {
		return nil, fmt.Errorf("reading the file names: %w", err)
	}
	defer rs.Close()
	out := map[int64]bool{}
	for rs.Next() {
		var id int64
		var name string
		if err := rs.Scan(&id, &name); err != nil {
			return nil, fmt.Errorf("reading the file names: %w", err)
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("matching the file names: %w", err)
		}
		if onFile != nil {
			onFile()
		}
		if gs.match(name) {
			out[id] = true
		}
	}
	return out, rs.Err()
}

// rank sorts items best first and keeps the first depth, those tied with
// the last of them ordered by name (knowledge base, file, position), so
// that the order does not hang on the database's row ids.
func (s *searcher) rank(ctx context.Context, items []scored, depth int) ([]scored, error) {
	slices.SortFunc(items, func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmpKey(a.key, b.key)
	})
	if len(items) > depth {
		end := depth
		for end < len(items) && end < depth+maxTies && items[end].score == items[depth-1].score {
			end++
		}
		items = items[:end]
	}
	// Names order only chunks of one score: without such ties, no need
	// to read them (load reads those of the hits).
	tied := false
	for i := 1; i < len(items) && !tied; i++ {
		tied = items[i].score == items[i-1].score
	}
	if !tied {
		return items, nil
	}
	if err := s.resolve(ctx, items); err != nil {
		return nil, err
	}
	slices.SortStableFunc(items, func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return s.cmpNames(a.key, b.key)
	})
	return items[:min(depth, len(items))], nil
}

func cmpKey(a, b key) int {
	if c := cmp.Compare(a.file, b.file); c != 0 {
		return c
	}
	return cmp.Compare(a.ord, b.ord)
}

func (s *searcher) cmpNames(a, b key) int {
	na, nb := s.names[a.file], s.names[b.file]
	if c := cmp.Compare(na[0], nb[0]); c != 0 {
		return c
	}
	if c := cmp.Compare(na[1], nb[1]); c != 0 {
		return c
	}
	return cmpKey(a, b)
}

// resolve reads the names of the files of items that are not cached.
func (s *searcher) resolve(ctx context.Context, items []scored) error {
	var ids []int64
	seen := map[int64]bool{}
	for _, it := range items {
		if _, ok := s.names[it.file]; !ok && !seen[it.file] {
			seen[it.file] = true
			ids = append(ids, it.file)
		}
	}
	for part := range slices.Chunk(ids, batchRows) {
		cond, args := s.d.ints("id", part)
		rs, err := s.c.Query(ctx, `SELECT id, kb_id, name FROM kb_files WHERE `+cond, args...)
		if err != nil {
			return fmt.Errorf("reading file names: %w", err)
		}
		for rs.Next() {
			var id, kb int64
			var name string
			if err := rs.Scan(&id, &kb, &name); err != nil {
				_ = rs.Close()
				return fmt.Errorf("reading file names: %w", err)
			}
			s.names[id] = [2]string{s.kbName[kb], name}
		}
		_ = rs.Close()
		if err := rs.Err(); err != nil {
			return fmt.Errorf("reading file names: %w", err)
		}
	}
	return nil
}

// load reads the chunks of ranked, in its order.
func (s *searcher) load(ctx context.Context, ranked []scored) ([]Hit, error) {
	if len(ranked) == 0 {
		return nil, nil
	}
	ks := make([]key, len(ranked))
	for i, r := range ranked {
		ks[i] = r.key
	}
	// The chunks with their files' names, in one statement.
	cond, args := s.d.keys(ks)
	rs, err := s.c.Query(ctx, `SELECT c.file_id, c.ord, c.source, c.source_type, c.start_line, c.end_line, c.symbol, c.text,
f.kb_id, f.name FROM kb_chunks c JOIN kb_files f ON f.id = c.file_id WHERE `+cond, args...)
	if err != nil {
		return nil, fmt.Errorf("reading the chunks: %w", err)
	}
	defer rs.Close()
	got := map[key]chunk.Chunk{}
	for rs.Next() {
		var k key
		var ord, start, end, kb int64
		var c chunk.Chunk
		if err := rs.Scan(&k.file, &ord, &c.Source, &c.SourceType, &start, &end, &c.Symbol, &c.Text, &kb, &c.FileName); err != nil {
			return nil, fmt.Errorf("reading the chunks: %w", err)
		}
		k.ord = int32(ord)
		c.StartLine, c.EndLine = int(start), int(end)
		s.names[k.file] = [2]string{s.kbName[kb], c.FileName}
		got[k] = c
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("reading the chunks: %w", err)
	}
	hits := make([]Hit, 0, len(ranked))
	for _, r := range ranked {
		c, ok := got[r.key]
		if !ok {
			continue // cannot happen in a snapshot
		}
		hits = append(hits, Hit{KB: s.names[r.file][0], Score: clamp01(r.score), Chunk: c})
	}
	return hits, nil
}

func clamp01(x float64) float64 {
	return min(max(x, 0), 1)
}
