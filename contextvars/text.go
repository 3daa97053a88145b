package contextvars

import (
	"strings"
	"unicode/utf8"
)

// OffsetOf returns the byte offset in content of the position (line, col),
// both counted from 1, columns in runes, as the protocol counts positions. Out-of-range positions are clamped:
// before the first line to the start, after the last line to the end, and
// columns to the start of their line or its end (before the newline).
func OffsetOf(content string, line, col int) int {
	return offsetFrom(content, 0, 1, line, col)
}

// offsetFrom is OffsetOf starting the search at off, the start of line from
// (<= line), so that a second position need not be searched from the top.
func offsetFrom(content string, off, from, line, col int) int {
	if line < 1 {
		return 0
	}
	for l := from; l < line; l++ {
		k := strings.IndexByte(content[off:], '\n')
		if k < 0 {
			return len(content) // beyond the last line
		}
		off += k + 1
	}
	end := strings.IndexByte(content[off:], '\n')
	if end < 0 {
		end = len(content)
	} else {
		end += off
	}
	for c := 1; c < col && off < end; c++ {
		_, size := utf8.DecodeRuneInString(content[off:end])
		off += size
	}
	return off
}

// PositionOf returns the (line, column) of the byte offset off in content.
func PositionOf(content string, off int) (line, col int) {
	off = min(max(off, 0), len(content))
	before := content[:off]
	line = strings.Count(before, "\n") + 1
	start := strings.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCountInString(before[start:]) + 1
}

// keepBefore keeps the partial line at the end of text (the text before a
// selection on the selection's own line) and the n full lines before it.
func keepBefore(text string, n int) string {
	idx := len(text)
	for k := 0; k <= n; k++ {
		j := strings.LastIndexByte(text[:idx], '\n')
		if j < 0 {
			return text
		}
		idx = j
	}
	return text[idx+1:]
}

// keepAfter keeps the partial line at the start of text (the text after a
// selection on the selection's own line) and the n full lines after it.
func keepAfter(text string, n int) string {
	idx := 0
	for k := 0; k <= n; k++ {
		j := strings.IndexByte(text[idx:], '\n')
		if j < 0 {
			return text
		}
		idx += j
		if k < n {
			idx++
		}
	}
	return text[:idx]
}

// lineBounds returns the byte offsets of the start of line first and of the
// end (before the newline) of line last, clamped to the content.
func lineBounds(content string, first, last int) (start, end int) {
	start = OffsetOf(content, first, 1)
	end = OffsetOf(content, last, 1)
	if k := strings.IndexByte(content[end:], '\n'); k >= 0 {
		return start, end + k
	}
	return start, len(content)
}

// lineCount is the number of lines of content (an empty content has one).
func lineCount(content string) int {
	return strings.Count(content, "\n") + 1
}
