package collect

import (
	"fmt"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/agentgw/agentgw/contextvars"
)

// visibleLines is the height of the visible range Editor reports.
const visibleLines = 40

// Editor reads the file at path and describes it as an IDE plugin
// would: the absolute path, the language from the extension, the content, the
// selection sel (nil: an empty selection at the start of line 1) as the one
// selected range and as the editor's positions, cursorOffset at the
// selection's end, a visible range of about 40 lines around the selection,
// and the text before and after the selection as the options ask (like Apply).
// A selection starting or ending beyond the last line is an error; columns
// beyond the end of their line are clamped to it.
func Editor(path string, sel *contextvars.Selection, o contextvars.Options) (*contextvars.Editor, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("collecting the active editor: %w", err)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("collecting the active editor: %w", err)
	}
	content := string(data)
	s := contextvars.Selection{StartLine: 1, StartColumn: 1, EndLine: 1, EndColumn: 1}
	if sel != nil {
		s = *sel
	}
	if n := lineCount(content); s.StartLine < 1 || s.EndLine < s.StartLine || s.EndLine > n {
		return nil, fmt.Errorf("collecting the active editor: selection %s is outside %s (%d lines)", s, path, n)
	}
	start := contextvars.OffsetOf(content, s.StartLine, max(s.StartColumn, 1))
	var end int
	if s.EndColumn == 0 {
		_, end = lineBounds(content, s.EndLine, s.EndLine)
	} else {
		end = contextvars.OffsetOf(content, s.EndLine, s.EndColumn)
	}
	end = max(start, end)
	sl, sc := contextvars.PositionOf(content, start)
	el, ec := contextvars.PositionOf(content, end)
	e := &contextvars.Editor{
		FilePath: abs, Language: languageOf(abs), Content: content,
		CursorOffset: utf8.RuneCountInString(content[:end]),
		StartLine:    sl, StartColumn: sc, EndLine: el, EndColumn: ec,
		SelectedRanges: []contextvars.Range{{Content: content[start:end], StartLine: sl, StartColumn: sc, EndLine: el, EndColumn: ec}},
		VisibleRange:   visibleSpan(content, sl),
	}
	set := contextvars.Set{ActiveEditor: e}
	set.Apply(contextvars.NameActiveEditor, o)
	return e, nil
}

// visibleSpan returns about visibleLines lines of content around line.
func visibleSpan(content string, line int) *contextvars.Span {
	n := lineCount(content)
	first := max(1, line-visibleLines/2)
	last := min(n, first+visibleLines-1)
	first = max(1, last-visibleLines+1)
	start, end := lineBounds(content, first, last)
	_, endCol := contextvars.PositionOf(content, end)
	return &contextvars.Span{Content: content[start:end], StartLine: first, StartColumn: 1, EndLine: last, EndColumn: endCol}
}
