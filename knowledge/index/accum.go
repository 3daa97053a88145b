package index

import "slices"

// accum holds the scores of the chunks a ranking has seen, by file and
// ordinal: one map look-up per postings row (a file's postings of a
// term) rather than one per posting, and the scores in slices.
type accum struct {
	// layout, when set, numbers the base's files: slotAt[slot] is 1 +
	// the file's index in files, 0 for none yet. at maps the other
	// files to their index (all files, without a layout).
	layout *fileLayout
	slotAt []int32
	at     map[int64]int32
	files  []fileScores
	live   []int32   // the files with chunks scored, by index
	n      int       // chunks scored (still candidates, when pruning)
	max    float64   // the highest score
	arena  []float64 // where files' scores are cut from
	heap   []float64 // kth's
	// scanned counts the scores kth and prune examined (searchStats).
	scanned int
}

// fileScores are the scores of a file's chunks by ordinal, noScore for a
// chunk not seen or dropped.
type fileScores struct {
	file   int64
	idx    int32 // in accum.files
	scores []float64
	n      int // chunks scored
}

// noScore marks a chunk with no score: every score is at least 0.
const noScore = -1.0

// newAccum returns an accum for about files files, numbered by layout
// when it is not nil.
func newAccum(files int, layout *fileLayout) *accum {
	a := &accum{at: make(map[int64]int32, files), layout: layout}
	if layout != nil {
		a.slotAt = make([]int32, len(layout.files))
	}
	return a
}

// of returns file's scores, made on first use. The pointer is valid until
// the next call.
func (a *accum) of(file int64) *fileScores {
	if a.layout != nil {
		if slot, ok := a.layout.slot[file]; ok {
			return a.ofSlot(slot)
		}
	}
	if i, ok := a.at[file]; ok {
		return &a.files[i]
	}
	a.at[file] = int32(len(a.files))
	return a.newFile(file)
}

// ofSlot is of for the file of a slot of the layout.
func (a *accum) ofSlot(slot int32) *fileScores {
	if i := a.slotAt[slot]; i > 0 {
		return &a.files[i-1]
	}
	a.slotAt[slot] = int32(len(a.files)) + 1
	fs := a.newFile(a.layout.files[slot])
	if n := a.layout.chunks[slot]; n > 0 {
		a.grow(fs, int(n)) // room for its chunks, no more
	}
	return fs
}

func (a *accum) newFile(file int64) *fileScores {
	a.files = append(a.files, fileScores{file: file, idx: int32(len(a.files))})
	return &a.files[len(a.files)-1]
}

// liveFile returns file's scores when some of its chunks are scored, else nil.
func (a *accum) liveFile(file int64) *fileScores {
	if a.layout != nil {
		if slot, ok := a.layout.slot[file]; ok {
			return a.liveSlot(slot)
		}
	}
	if i, ok := a.at[file]; ok && a.files[i].n > 0 {
		return &a.files[i]
	}
	return nil
}

// liveSlot is liveFile for the file of a slot of the layout.
func (a *accum) liveSlot(slot int32) *fileScores {
	if i := a.slotAt[slot]; i > 0 && a.files[i-1].n > 0 {
		return &a.files[i-1]
	}
	return nil
}

// add adds sc to the score of chunk ord of fs, scoring it if it was not.
func (a *accum) add(fs *fileScores, ord int, sc float64) {
	if ord >= len(fs.scores) {
		a.grow(fs, max(ord+1, 2*len(fs.scores), 8))
	}
	if v := fs.scores[ord]; v >= 0 {
		fs.scores[ord] = v + sc
		a.max = max(a.max, v+sc)
		return
	}
	fs.scores[ord] = sc
	a.max = max(a.max, sc)
	if fs.n == 0 {
		a.live = append(a.live, fs.idx)
	}
	fs.n++
	a.n++
}

// addSeen adds sc to the score of chunk ord of fs if it has one.
func (a *accum) addSeen(fs *fileScores, ord int, sc float64) {
	if ord < len(fs.scores) && fs.scores[ord] >= 0 {
		fs.scores[ord] += sc
		a.max = max(a.max, fs.scores[ord])
	}
}

// grow makes room in fs for n chunks (at least its own).
func (a *accum) grow(fs *fileScores, n int) {
	n = max(n, len(fs.scores))
	if len(a.arena) < n {
		a.arena = make([]float64, max(n, 16384))
	}
	s := a.arena[:n:n]
	a.arena = a.arena[n:]
	copy(s, fs.scores)
	for i := len(fs.scores); i < n; i++ {
		s[i] = noScore
	}
	fs.scores = s
}

// kth is the k-th largest score, 0 when fewer are scored.
func (a *accum) kth(k int) float64 {
	if a.n < k || k <= 0 {
		return 0
	}
	a.heap = a.heap[:0]
	for _, i := range a.live {
		a.scanned += len(a.files[i].scores)
		for _, v := range a.files[i].scores {
			if v >= 0 {
				a.push(v, k)
			}
		}
	}
	return a.heap[0]
}

// push keeps v in a.heap, the k largest scores pushed (a min-heap).
func (a *accum) push(v float64, k int) {
	h := a.heap
	if len(h) < k {
		h = append(h, v)
		for j := len(h) - 1; j > 0; {
			p := (j - 1) / 2
			if h[p] <= h[j] {
				break
			}
			h[p], h[j] = h[j], h[p]
			j = p
		}
		a.heap = h
	} else if v > h[0] {
		h[0] = v
		siftDown(h)
	}
}

// siftDown restores the min-heap h after its root changed.
func siftDown(h []float64) {
	for j := 0; ; {
		l := 2*j + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r] < h[l] {
			m = r
		}
		if h[j] <= h[m] {
			return
		}
		h[j], h[m] = h[m], h[j]
		j = m
	}
}

// prune drops the chunks that cannot reach bar with rem more and returns
// the k-th largest score of those left (bar when fewer are left).
func (a *accum) prune(bar, rem float64, k int) float64 {
	live := a.live[:0]
	a.heap = a.heap[:0]
	for _, i := range a.live {
		fs := &a.files[i]
		a.scanned += len(fs.scores)
		for o, v := range fs.scores {
			if v < 0 {
				continue
			}
			if v+rem < bar {
				fs.scores[o] = noScore
				fs.n--
				a.n--
				continue
			}
			a.push(v, k)
		}
		if fs.n > 0 {
			live = append(live, i)
		}
	}
	a.live = live
	if len(a.heap) < k {
		return bar
	}
	return max(bar, a.heap[0])
}

// liveFiles returns the files with chunks scored, sorted.
func (a *accum) liveFiles() []int64 {
	files := make([]int64, len(a.live))
	for j, i := range a.live {
		files[j] = a.files[i].file
	}
	slices.Sort(files)
	return files
}

// items returns the chunks scored at least bar.
func (a *accum) items(bar float64) []scored {
	var out []scored
	for _, i := range a.live {
		fs := &a.files[i]
		for o, v := range fs.scores {
			if v >= 0 && v >= bar {
				out = append(out, scored{key{fs.file, int32(o)}, v})
			}
		}
	}
	return out
}

// addScores adds the scores ts holds of a term to their chunks' as a
// ranking's loop adds a term's postings: to the chunks f keeps, or when
// pruning to the candidates left only. ts's layout is a's.
func (a *accum) addScores(ts *termScores, f filter, pruning bool) {
	start := int32(0)
	for g, slot := range ts.slots {
		end := ts.ends[g]
		ords, vals := ts.ords[start:end], ts.vals[start:end]
		stypes := ts.stypes[start:end]
		start = end
		if pruning {
			if fs := a.liveSlot(slot); fs != nil {
				for j, o := range ords {
					a.addSeen(fs, int(o), vals[j])
				}
			}
			continue
		}
		if f.files != nil && !f.files[a.layout.files[slot]] {
			continue
		}
		var fs *fileScores
		for j, o := range ords {
			if f.stype != 0 && f.stype != stypes[j] {
				continue
			}
			if fs == nil {
				fs = a.ofSlot(slot)
			}
			a.add(fs, int(o), vals[j])
		}
	}
}
