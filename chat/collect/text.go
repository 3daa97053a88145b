package collect

import (
	"strings"

	"github.com/agentgw/agentgw/contextvars"
)

// Positions are counted the way the protocol counts them, with contextvars'
// OffsetOf and PositionOf: lines and columns from 1, columns in runes.

// lineBounds returns the byte offsets of the start of line first and of the
// end (before the newline) of line last, clamped to the content.
func lineBounds(content string, first, last int) (start, end int) {
	start = contextvars.OffsetOf(content, first, 1)
	end = contextvars.OffsetOf(content, last, 1)
	if k := strings.IndexByte(content[end:], '\n'); k >= 0 {
		return start, end + k
	}
	return start, len(content)
}

// lineCount is the number of lines of content (an empty content has one).
func lineCount(content string) int {
	return strings.Count(content, "\n") + 1
}
