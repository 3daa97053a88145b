package collect

import (
	"strings"
	"unicode/utf8"
)

// Positions are counted the way the protocol counts them, and the way the
// gateway's contextvars re-applies resolver options: lines and columns from
// 1, columns in runes.

// offsetOf returns the byte offset in content of the position (line, col),
// both counted from 1, columns in runes. Out-of-range positions are clamped:
// before the first line to the start, after the last line to the end, and
// columns to the start of their line or its end (before the newline).
func offsetOf(content string, line, col int) int {
	if line < 1 {
		return 0
	}
	off := 0
	for l := 1; l < line; l++ {
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

// positionOf returns the (line, column) of the byte offset off in content.
func positionOf(content string, off int) (line, col int) {
	off = min(max(off, 0), len(content))
	before := content[:off]
	line = strings.Count(before, "\n") + 1
	start := strings.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCountInString(before[start:]) + 1
}

// lineBounds returns the byte offsets of the start of line first and of the
// end (before the newline) of line last, clamped to the content.
func lineBounds(content string, first, last int) (start, end int) {
	start = offsetOf(content, first, 1)
	end = offsetOf(content, last, 1)
	if k := strings.IndexByte(content[end:], '\n'); k >= 0 {
		return start, end + k
	}
	return start, len(content)
}

// lineCount is the number of lines of content (an empty content has one).
func lineCount(content string) int {
	return strings.Count(content, "\n") + 1
}
