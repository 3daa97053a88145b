package index

import (
	"container/list"
	"sync"
)

// postingsCache keeps the postings rows of the terms a search read whole
// and that many chunks hold (defaultCacheMinDF), so that the next search
// naming them (a common word of code: err, ctx, return) steps through
// no row of them: reading and stepping rows is most of what such a
// term costs. Memory is bounded (Options.PostingsCacheBytes), the least
// recently used term evicted first. An entry is for one knowledge base
// at one version of its index (kb_bases.version, incremented in each
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
}

type cacheKey struct {
	kb, version int64
	term        string
}

type cacheEntry struct {
	key  cacheKey
	rows []fileRows // never changed once cached
	size int64
}

// defaultCacheMinDF is the document frequency from which a term read
// whole is cached: a rarer term's rows are few and cheap to read again.
const defaultCacheMinDF = 1000

func newPostingsCache(max int64) *postingsCache {
	return &postingsCache{max: max, lru: list.New(), entries: map[cacheKey]*list.Element{}, version: map[int64]int64{}}
}

// get returns the rows cached for k; they must not be changed.
func (c *postingsCache) get(k cacheKey) ([]fileRows, bool) {
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
	return e.Value.(*cacheEntry).rows, true
}

// put caches rows for k unless they would take more than an eighth of
// the cache, evicting the least recently used entries to make room.
func (c *postingsCache) put(k cacheKey, rows []fileRows) {
	if c == nil {
		return
	}
	size := int64(len(k.term)) + 64
	for _, r := range rows {
		size += int64(len(r.post)) + 32
	}
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
	c.entries[k] = c.lru.PushFront(&cacheEntry{key: k, rows: rows, size: size})
	c.size += size
}

// seen records that kb is at version v, dropping the entries of its
// older versions.
func (c *postingsCache) seen(kb, v int64) {
	if old, ok := c.version[kb]; ok && old >= v {
		return
	}
	c.version[kb] = v
	for e := c.lru.Front(); e != nil; {
		next := e.Next()
		if k := e.Value.(*cacheEntry).key; k.kb == kb && k.version < v {
			c.remove(e)
		}
		e = next
	}
}

func (c *postingsCache) remove(e *list.Element) {
	ce := e.Value.(*cacheEntry)
	c.lru.Remove(e)
	delete(c.entries, ce.key)
	c.size -= ce.size
}
