package contextvars

import (
	"fmt"
	"strconv"
	"strings"
)

// Selection is a selection in a file given on the command line. Lines and
// columns count from 1; EndColumn is the column just after the selection, and
// 0 means the end of EndLine.
type Selection struct {
	StartLine, StartColumn, EndLine, EndColumn int
}

// maxPosition bounds line and column numbers so that they cannot overflow.
const maxPosition = 1 << 30

// ParseSelection reads "L1:C1-L2:C2", "L1-L2" (whole lines), "L" (one whole
// line) or "L:C" (an empty selection at that position). Either end of a range
// may omit its column: the start then begins the line and the end ends it.
// The start must not come after the end.
func ParseSelection(s string) (Selection, error) {
	text := strings.TrimSpace(s)
	startText, endText, isRange := strings.Cut(text, "-")
	sl, sc, err := parsePosition(startText, 1)
	if err != nil {
		return Selection{}, fmt.Errorf("selection %q: %w", s, err)
	}
	if !isRange {
		if strings.Contains(startText, ":") {
			return Selection{sl, sc, sl, sc}, nil
		}
		return Selection{sl, 1, sl, 0}, nil
	}
	el, ec, err := parsePosition(endText, 0)
	if err != nil {
		return Selection{}, fmt.Errorf("selection %q: %w", s, err)
	}
	sel := Selection{sl, sc, el, ec}
	if el < sl || (el == sl && ec != 0 && ec < sc) {
		return Selection{}, fmt.Errorf("selection %q: the end %s comes before the start %s", s,
			formatPosition(el, ec), formatPosition(sl, sc))
	}
	return sel, nil
}

// parsePosition reads "L" or "L:C"; a missing column is defaultCol.
func parsePosition(s string, defaultCol int) (line, col int, err error) {
	lineText, colText, hasCol := strings.Cut(strings.TrimSpace(s), ":")
	if line, err = parseNumber(lineText, "line"); err != nil {
		return 0, 0, err
	}
	if !hasCol {
		return line, defaultCol, nil
	}
	col, err = parseNumber(colText, "column")
	return line, col, err
}

func parseNumber(s, what string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("missing %s number (want L1:C1-L2:C2, L1-L2 or L)", what)
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%s %q is not a number", what, s)
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > maxPosition {
		return 0, fmt.Errorf("%s %s is too large", what, s)
	}
	if n < 1 {
		return 0, fmt.Errorf("%s numbers count from 1, got %d", what, n)
	}
	return n, nil
}

func formatPosition(line, col int) string {
	if col == 0 {
		return strconv.Itoa(line)
	}
	return strconv.Itoa(line) + ":" + strconv.Itoa(col)
}

// String writes the selection in the form ParseSelection reads.
func (s Selection) String() string {
	if s.StartLine == s.EndLine && s.StartColumn == s.EndColumn && s.EndColumn != 0 {
		return formatPosition(s.StartLine, s.StartColumn)
	}
	if s.StartColumn == 1 && s.EndColumn == 0 {
		if s.StartLine == s.EndLine {
			return strconv.Itoa(s.StartLine)
		}
		return strconv.Itoa(s.StartLine) + "-" + strconv.Itoa(s.EndLine)
	}
	return formatPosition(s.StartLine, s.StartColumn) + "-" + formatPosition(s.EndLine, s.EndColumn)
}
