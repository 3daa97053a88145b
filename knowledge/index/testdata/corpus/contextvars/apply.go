package contextvars

import (
	"slices"
	"strings"
)

// Apply re-applies the resolver options of variable name, since a plugin may
// not have honoured them. It does nothing when the variable is absent.
//
// activeEditor: for each selected range, a nil ContentBeforeSelectionLines
// drops contentBeforeSelection; N keeps the N lines nearest the selection
// plus the partial line it starts on; 0 keeps only that partial line. The
// same goes for ContentAfterSelectionLines. When the plugin did not send the
// text but sent the content and the range's positions, the text is derived
// from the content. packageFiles: at most MaximumNumber files are kept.
// knowledgeBase: with KnowledgeBaseIDs set, only those knowledge bases are
// kept (RecallByAgent changes nothing yet: there is no server-side recall).
func (s *Set) Apply(name string, o Options) {
	switch name {
	case NameActiveEditor:
		if s.ActiveEditor != nil {
			applyEditor(s.ActiveEditor, o, s.droppedLines(s.ActiveEditor))
		}
	case NamePackageFiles:
		if o.MaximumNumber != nil && len(s.PackageFiles) > max(*o.MaximumNumber, 0) {
			s.PackageFiles = s.PackageFiles[:max(*o.MaximumNumber, 0)]
		}
	case NameKnowledgeBase:
		if s.KnowledgeBase != nil && len(o.KnowledgeBaseIDs) > 0 {
			kept := make([]KnowledgeBase, 0, len(s.KnowledgeBase))
			for _, kb := range s.KnowledgeBase {
				if slices.Contains(o.KnowledgeBaseIDs, kb.KnowledgeBaseID) {
					kept = append(kept, kb)
				}
			}
			s.KnowledgeBase = kept
		}
	}
}

// applyEditor applies the before/after options to each selected range of e.
// dropped is the number of lines Cut removed from the top of e.Content.
func applyEditor(e *Editor, o Options, dropped int) {
	for k := range e.SelectedRanges {
		r := &e.SelectedRanges[k]
		var start, end int
		known, ok := false, false
		offsets := func() bool {
			if !known {
				start, end, ok = rangeOffsets(e.Content, r, dropped)
				known = true
			}
			return ok
		}
		r.ContentBeforeSelection = around(r.ContentBeforeSelection, o.ContentBeforeSelectionLines,
			func() (string, bool) { ok := offsets(); return e.Content[:start], ok }, keepBefore)
		r.ContentAfterSelection = around(r.ContentAfterSelection, o.ContentAfterSelectionLines,
			func() (string, bool) { ok := offsets(); return e.Content[end:], ok }, keepAfter)
	}
}

// around computes one side's text: dropped without the option, else the
// given (or derived) text cut to n lines.
func around(text *string, n *int, derive func() (string, bool), keep func(string, int) string) *string {
	if n == nil {
		return nil
	}
	var t string
	switch {
	case text != nil:
		t = *text
	default:
		d, ok := derive()
		if !ok {
			return nil
		}
		t = d
	}
	t = keep(t, max(*n, 0))
	if text != nil && *text == t {
		return text
	}
	return &t
}

// rangeOffsets returns the byte offsets of r's start and end in content,
// ordered, or false when r carries no position or there is no content.
func rangeOffsets(content string, r *Range, dropped int) (start, end int, ok bool) {
	if content == "" || r.StartLine < 1 || r.EndLine < 1 {
		return 0, 0, false
	}
	sl, el := r.StartLine-dropped, r.EndLine-dropped
	start = OffsetOf(content, sl, r.StartColumn)
	if el >= sl && sl >= 1 && start < len(content) {
		lineStart := strings.LastIndexByte(content[:start], '\n') + 1
		end = offsetFrom(content, lineStart, sl, el, r.EndColumn)
	} else {
		end = OffsetOf(content, el, r.EndColumn)
	}
	if start > end {
		start, end = end, start
	}
	return start, end, true
}
