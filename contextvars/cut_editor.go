package contextvars

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// selectionLines returns the first and last line of e's selection (the union
// of its selected ranges, else its own positions, else the cursor's line).
func selectionLines(e *Editor) (first, last int) {
	for _, r := range e.SelectedRanges {
		a, b := min(r.StartLine, r.EndLine), max(r.StartLine, r.EndLine)
		if a < 1 {
			continue
		}
		if first == 0 || a < first {
			first = a
		}
		last = max(last, b)
	}
	if first > 0 {
		return first, last
	}
	if a, b := min(e.StartLine, e.EndLine), max(e.StartLine, e.EndLine); a >= 1 {
		return a, b
	}
	cursor := min(max(e.CursorOffset, 0), utf8.RuneCountInString(e.Content))
	off := 0
	for ; cursor > 0; cursor-- {
		_, size := utf8.DecodeRuneInString(e.Content[off:])
		off += size
	}
	line, _ := PositionOf(e.Content, off)
	return line, line
}

// shrink removes lines from the ends of lines (numbered from 1), farthest
// from the lines [a, b] first, until need tokens are gone or only lines of
// [a, b] remain. It returns the kept lines [lo, hi] (empty when lo > hi).
func shrink(lines []string, a, b, need int, count func(string) int) (lo, hi, cut int) {
	dist := func(i int) int {
		switch {
		case i < a:
			return a - i
		case i > b:
			return i - b
		}
		return 0
	}
	lo, hi = 1, len(lines)
	for cut < need && lo <= hi {
		dl, dh := dist(lo), dist(hi)
		switch {
		case dl == 0 && dh == 0:
			return lo, hi, cut
		case dh >= dl:
			cut += count(lines[hi-1])
			hi--
		default:
			cut += count(lines[lo-1])
			lo++
		}
	}
	return lo, hi, cut
}

// cutEditorContent shrinks activeEditor.content to a window around the selection.
func (s *Set) cutEditorContent(need int, count func(string) int) (int, string) {
	e := s.ActiveEditor
	if e == nil || e.Content == "" {
		return 0, ""
	}
	dropped := s.droppedLines(e)
	first, last := selectionLines(e)
	lines := strings.Split(e.Content, "\n")
	n := len(lines)
	a := min(max(first-dropped, 1), n)
	b := min(max(last-dropped, a), n)
	lo, hi, cut := shrink(lines, a, b, need, count)
	if lo == 1 && hi == n {
		return 0, ""
	}
	start, end := lineBounds(e.Content, lo, hi)
	e.Content = e.Content[start:end]
	s.trim = contentTrim{editor: e, dropped: dropped + lo - 1}
	gone := n - (hi - lo + 1)
	return cut, fmt.Sprintf("activeEditor.content: dropped %d %s far from the selection, kept lines %d-%d (~%d tokens)",
		gone, plural(gone, "line"), dropped+lo, dropped+hi, cut)
}

// cutVisibleRange drops visibleRange lines outside the selection, farthest first.
func (s *Set) cutVisibleRange(need int, count func(string) int) (int, string) {
	e := s.ActiveEditor
	if e == nil || e.VisibleRange == nil {
		return 0, ""
	}
	v := e.VisibleRange
	first, last := selectionLines(e)
	base := max(v.StartLine, 1)
	lines := strings.Split(v.Content, "\n")
	lo, hi, cut := shrink(lines, first-base+1, last-base+1, need, count)
	if lo == 1 && hi == len(lines) {
		return 0, ""
	}
	if lo > hi {
		e.VisibleRange = nil
		return cut, fmt.Sprintf("activeEditor.visibleRange: dropped it: %d %s outside the selection (~%d tokens)",
			len(lines), plural(len(lines), "line"), cut)
	}
	start, end := lineBounds(v.Content, lo, hi)
	nv := Span{Content: v.Content[start:end], StartLine: base + lo - 1, StartColumn: v.StartColumn,
		EndLine: base + hi - 1, EndColumn: v.EndColumn}
	if lo > 1 {
		nv.StartColumn = 1
	}
	if hi < len(lines) {
		nv.EndColumn = utf8.RuneCountInString(lines[hi-1]) + 1
	}
	e.VisibleRange = &nv
	gone := len(lines) - (hi - lo + 1)
	return cut, fmt.Sprintf("activeEditor.visibleRange: dropped %d %s outside the selection, kept lines %d-%d (~%d tokens)",
		gone, plural(gone, "line"), nv.StartLine, nv.EndLine, cut)
}

// side is one contentBefore/AfterSelection text being cut.
type side struct {
	text   **string
	lines  []string
	before bool
	lo, hi int // kept lines, 0-based, inclusive
}

// cutAroundSelection drops contentBefore/AfterSelection lines, farthest from
// their selection first, across all ranges.
func (s *Set) cutAroundSelection(need int, count func(string) int) (int, string) {
	if s.ActiveEditor == nil {
		return 0, ""
	}
	type item struct{ side, line, dist int }
	var sides []*side
	var items []item
	for k := range s.ActiveEditor.SelectedRanges {
		r := &s.ActiveEditor.SelectedRanges[k]
		for _, sd := range []*side{newSide(&r.ContentBeforeSelection, true), newSide(&r.ContentAfterSelection, false)} {
			if sd == nil {
				continue
			}
			for i := range sd.lines {
				d := i
				if sd.before {
					d = len(sd.lines) - 1 - i
				}
				items = append(items, item{len(sides), i, d})
			}
			sides = append(sides, sd)
		}
	}
	sort.SliceStable(items, func(a, b int) bool { return items[a].dist > items[b].dist })
	cut, dropped := 0, 0
	for _, it := range items {
		if cut >= need {
			break
		}
		sd := sides[it.side]
		cut += count(sd.lines[it.line])
		dropped++
		if sd.before {
			sd.lo++
		} else {
			sd.hi--
		}
	}
	if dropped == 0 {
		return 0, ""
	}
	for _, sd := range sides {
		sd.store()
	}
	return cut, fmt.Sprintf("activeEditor.selectedRanges: dropped %d %s of the text before/after the selection (~%d tokens)",
		dropped, plural(dropped, "line"), cut)
}

func newSide(text **string, before bool) *side {
	if *text == nil || **text == "" {
		return nil
	}
	lines := strings.Split(**text, "\n")
	return &side{text: text, lines: lines, before: before, lo: 0, hi: len(lines) - 1}
}

// store writes back the kept lines, as a substring of the original text.
func (sd *side) store() {
	if sd.lo == 0 && sd.hi == len(sd.lines)-1 {
		return
	}
	if sd.lo > sd.hi {
		*sd.text = nil
		return
	}
	start, end := lineBounds(**sd.text, sd.lo+1, sd.hi+1)
	t := (**sd.text)[start:end]
	*sd.text = &t
}
