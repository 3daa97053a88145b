package index

import (
	"container/list"
	"errors"
	"slices"
	"sync"
)

// postingsCache keeps, for the terms a search read whole and that many
// chunks hold (defaultCacheMinDF), what each of their postings adds to
// its chunk's score (termScores), so that the next search naming them (a
// common word of code: err, ctx, return) reads no row of them and
// decodes and scores no posting: for such a term that is nearly all it
// costs. A posting's part of the score hangs only on the term, its
// weight in the query, the chunk's fields and length and the base's
// statistics (N, the average length, the term's df), all fixed at one
// version of the index, so a cached part is the very float64 the
// scoring loop would compute (the ranking is unchanged to the bit).
// Memory is bounded (Options.PostingsCacheBytes), the least recently
// used term evicted first. An entry is for one knowledge base at one
// version of its index (kb_bases.version, incremented in each
// transaction that changes its postings, by any process sharing the
// database), read in the search's snapshot: a write makes the entries
// of the base's older versions unreachable, and they are dropped as
// soon as a search sees the new version.
type postingsCache struct {
	mu      sync.Mutex
	max     int64
	size    int64
	lru     *list.List // of *cacheEntry, most recent first
	entries map[cacheKey]*list.Element
	version map[int64]int64 // a base: the newest version seen
	// layouts are the bases' file layouts at their newest version, out
	// of the bound (a base's: 24 bytes a file).
	layouts map[int64]*fileLayout
	// warmed is, for a base, the newest version a warm-up was started
	// for (Index.maybeWarm).
	warmed map[int64]int64
	// reading are the terms being read whole to be cached, by a search
	// or a warm-up: closed when done (sharedScores).
	reading map[cacheKey]chan struct{}
	// wanted are terms searches are to read whole, not cached yet, the
	// most recent last: a warm-up running reads them before its own
	// (nextWanted), so that the first searches of a version share their
	// reads with it.
	wanted []wantedTerm
}

// wantedTerm is a term a search is to read whole, and its key.
type wantedTerm struct {
	key cacheKey
	t   termInfo
}

// maxWanted bounds postingsCache.wanted.
const maxWanted = 256

// fileLayout numbers the files of a base at a version of its index, 0 to
// len(files)-1 (slots), so that cached scores name a file by its slot and
// a search adds them to its files' scores by indexing a slice rather
// than by a map look-up per file (accum).
type fileLayout struct {
	kb, version int64
	files       []int64 // by slot
	chunks      []int32 // the files' chunks, by slot
	slot        map[int64]int32
}

func newFileLayout(kb, version int64, files []int64, chunks []int32) *fileLayout {
	l := &fileLayout{kb: kb, version: version, files: files, chunks: chunks, slot: make(map[int64]int32, len(files))}
	for i, f := range files {
		l.slot[f] = int32(i)
	}
	return l
}

// cacheKey names a term's scores: its base, the base's version, the
// term, and its weight (termInfo.w) and names flag, which its scores
// hang on besides (a word of the query and an expansion of another are
// weighed apart).
type cacheKey struct {
	kb, version int64
	term        string
	w           float64
	names       bool
}

type cacheEntry struct {
	key    cacheKey
	scores *termScores // never changed once cached
	size   int64
}

// termScores are what a term's postings add to their chunks' scores
// (scorer.of), file by file: the postings of the file of slot slots[i]
// of layout are [ends[i-1], ends[i]) of ords, stypes and vals, in the
// rows' order. Postings that add nothing (an expansion found in no name)
// are left out.
type termScores struct {
	layout *fileLayout // the slots' (the key's base and version)
	slots  []int32
	ends   []int32
	ords   []int32
	stypes []byte
	vals   []float64
}

// newTermScores returns the scores of t, to be added, with room for its
// postings (but for an expansion's, most of which add nothing).
func newTermScores(layout *fileLayout, t termInfo) *termScores {
	if t.names {
		return &termScores{layout: layout}
	}
	n := int(min(t.df, 1<<20))
	files := min(n, len(layout.files))
	return &termScores{layout: layout, slots: make([]int32, 0, files), ends: make([]int32, 0, files),
		ords: make([]int32, 0, n), stypes: make([]byte, 0, n), vals: make([]float64, 0, n)}
}

// errNoSlot is termScores.add's error for a file not in its layout: the
// layout is not the postings' version.
var errNoSlot = errors.New("a file not in the layout")

// add appends file's postings in post, scored by sc for t.
func (ts *termScores) add(file int64, post []byte, sc scorer, t termInfo) error {
	slot, ok := ts.layout.slot[file]
	if !ok {
		return errNoSlot
	}
	it := postingIter{b: post}
	var p posting
	n := len(ts.ords)
	for {
		ok, err := it.next(&p)
		if !ok {
			if err != nil {
				return err
			}
			break
		}
		if v, ok := sc.of(t, &p); ok {
			ts.ords = append(ts.ords, int32(p.ord))
			ts.stypes = append(ts.stypes, p.stype)
			ts.vals = append(ts.vals, v)
		}
	}
	if len(ts.ords) == n {
		return nil
	}
	// A file's postings cut into rows: one group when the rows come
	// together (a group per row otherwise, which scores the same).
	if k := len(ts.slots) - 1; k >= 0 && ts.slots[k] == slot {
		ts.ends[k] = int32(len(ts.ords))
		return nil
	}
	ts.slots = append(ts.slots, slot)
	ts.ends = append(ts.ends, int32(len(ts.ords)))
	return nil
}

// termScoresSize is about the memory the scores of n postings in files
// files take.
func termScoresSize(files, n int64) int64 {
	return 8*files + 13*n
}

// defaultCacheMinDF is the document frequency from which a term read
// whole is cached: a rarer term's rows are few and cheap to read again.
const defaultCacheMinDF = 1000

func newPostingsCache(max int64) *postingsCache {
	return &postingsCache{max: max, lru: list.New(), entries: map[cacheKey]*list.Element{}, version: map[int64]int64{},
		layouts: map[int64]*fileLayout{}, warmed: map[int64]int64{}, reading: map[cacheKey]chan struct{}{}}
}

// get returns the scores cached for k; they must not be changed.
func (c *postingsCache) get(k cacheKey) (*termScores, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen(k.kb, k.version)
	e, ok := c.entries[k]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(e)
	return e.Value.(*cacheEntry).scores, true
}

// getOrRead returns the scores cached for k; else, when another search
// or a warm-up is reading them, a channel closed when it is done; else
// it records that the caller reads them (lead), which must call endRead
// when done.
func (c *postingsCache) getOrRead(k cacheKey) (ts *termScores, wait <-chan struct{}, lead bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen(k.kb, k.version)
	if e, ok := c.entries[k]; ok {
		c.lru.MoveToFront(e)
		return e.Value.(*cacheEntry).scores, nil, false
	}
	if ch, ok := c.reading[k]; ok {
		return nil, ch, false
	}
	c.reading[k] = make(chan struct{})
	return nil, nil, true
}

// want records that a search is to read t's scores whole (key k), for a
// warm-up to read first. Terms cached or being read are not recorded.
func (c *postingsCache) want(k cacheKey, t termInfo) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[k]; ok {
		return
	}
	if _, ok := c.reading[k]; ok {
		return
	}
	if len(c.wanted) == maxWanted {
		c.wanted = slices.Delete(c.wanted, 0, 1)
	}
	c.wanted = append(c.wanted, wantedTerm{k, t})
}

// nextWanted returns the term a search wants most recently of base kb at
// version v (postingsCache.want), neither cached nor being read, and
// drops it with those of older versions and those cached or being read.
func (c *postingsCache) nextWanted(kb, v int64) (termInfo, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.wanted) > 0 {
		w := c.wanted[len(c.wanted)-1]
		c.wanted = c.wanted[:len(c.wanted)-1]
		if w.key.kb != kb || w.key.version != v {
			continue
		}
		if _, ok := c.entries[w.key]; ok {
			continue
		}
		if _, ok := c.reading[w.key]; ok {
			continue
		}
		return w.t, true
	}
	return termInfo{}, false
}

// endRead records that the caller of getOrRead that leads the read of k
// is done, having put its scores or not.
func (c *postingsCache) endRead(k cacheKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	close(c.reading[k])
	delete(c.reading, k)
}

// room is the bytes the cache holds before it evicts.
func (c *postingsCache) room() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return max(c.max-c.size, 0)
}

// superseded reports whether a search saw, or a warm-up was started
// for, a version of base kb newer than v.
func (c *postingsCache) superseded(kb, v int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version[kb] > v || c.warmed[kb] > v
}

// claimWarm reports whether a warm-up of base kb at version v is to be
// started: none was for v or a newer version. It records that one is.
func (c *postingsCache) claimWarm(kb, v int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w, ok := c.warmed[kb]; ok && w >= v {
		return false
	}
	c.warmed[kb] = v
	return true
}

// fits reports whether the scores of a term df chunks hold may be
// cached (put keeps them).
func (c *postingsCache) fits(df int64) bool {
	return c != nil && termScoresSize(1, df) <= c.max/8
}

// put caches ts for k unless they would take more than an eighth of the
// cache, evicting the least recently used entries to make room.
func (c *postingsCache) put(k cacheKey, ts *termScores) {
	if c == nil {
		return
	}
	size := termScoresSize(int64(len(ts.slots)), int64(len(ts.ords)))
	if size > c.max/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen(k.kb, k.version)
	if k.version < c.version[k.kb] {
		return // a newer index of the base is there
	}
	if _, ok := c.entries[k]; ok {
		return
	}
	for c.size+size > c.max {
		c.remove(c.lru.Back())
	}
	c.entries[k] = c.lru.PushFront(&cacheEntry{key: k, scores: ts, size: size})
	c.size += size
}

// seen records that kb is at version v, dropping the entries of its
// older versions.
func (c *postingsCache) seen(kb, v int64) {
	if old, ok := c.version[kb]; ok && old >= v {
		return
	}
	c.version[kb] = v
	delete(c.layouts, kb)
	for e := c.lru.Front(); e != nil; {
		next := e.Next()
		if k := e.Value.(*cacheEntry).key; k.kb == kb && k.version < v {
			c.remove(e)
		}
		e = next
	}
}

// layout returns the file layout of base kb at version v, nil when none
// is cached.
func (c *postingsCache) layout(kb, v int64) *fileLayout {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen(kb, v)
	if l := c.layouts[kb]; l != nil && l.version == v {
		return l
	}
	return nil
}

// putLayout caches l unless a newer version of its base was seen, or
// another search cached its version's first, and returns the layout to
// number the files by: the one cached, else l.
func (c *postingsCache) putLayout(l *fileLayout) *fileLayout {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen(l.kb, l.version)
	if old := c.layouts[l.kb]; old != nil && old.version == l.version {
		return old
	}
	if l.version == c.version[l.kb] {
		c.layouts[l.kb] = l
	}
	return l
}

func (c *postingsCache) remove(e *list.Element) {
	ce := e.Value.(*cacheEntry)
	c.lru.Remove(e)
	delete(c.entries, ce.key)
	c.size -= ce.size
}
