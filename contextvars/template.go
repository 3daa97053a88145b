package contextvars

import "strings"

// TemplateData returns the present variables for text/template: a map from
// each variable's name to its value written with the protocol's JSON field
// names in plain maps, slices, strings, ints, float64s and bools, so that
// templates say .activeEditor.filePath or range .knowledgeBase. Optional
// fields that are absent are absent keys. activeEditor also gets
// "selectedText", its selected ranges' content joined by "\n", and, when
// there is a selected range, "selection": the first one. Variables with
// unknown names appear under their own names, as decoded.
func (s *Set) TemplateData() map[string]any {
	m := make(map[string]any, len(s.order)+len(s.Other))
	for _, name := range knownNames {
		if v, ok := s.knownData(name, false); ok {
			m[name] = v
		}
	}
	for name, v := range s.Other {
		if !isKnown(name) {
			m[name] = v
		}
	}
	return m
}

// Fields is template data read field by field: a template evaluator asks
// only for the fields a template names, and nothing else is built. Field
// gives what Map()[name] holds, as Fields again where that is lazy too, and
// whether Map has the key; Map builds the whole value as TemplateData would.
type Fields interface {
	Field(name string) (any, bool)
	Map() map[string]any
}

// TemplateField is TemplateData()[name] without building the other
// variables: activeEditor comes as Fields, built only as far as it is read.
func (s *Set) TemplateField(name string) (any, bool) {
	if isKnown(name) {
		return s.knownData(name, true)
	}
	v, ok := s.Other[name]
	return v, ok
}

// knownData is the template data of a known variable, whether present;
// with lazy, activeEditor as Fields.
func (s *Set) knownData(name string, lazy bool) (any, bool) {
	switch name {
	case NameUserInputPrompt:
		return s.UserInputPrompt, s.Has(NameUserInputPrompt)
	case NameUserInfo:
		if u := s.UserInfo; u != nil {
			return map[string]any{"id": u.ID, "name": u.Name, "nickname": u.Nickname}, true
		}
	case NameVCS:
		if v := s.VCS; v != nil {
			return map[string]any{
				"type": v.Type, "branchName": v.BranchName, "upstreamBranchName": v.UpstreamBranchName,
				"remoteUrl": v.RemoteURL, "remotes": stringsData(v.Remotes),
			}, true
		}
	case NameKnowledgeBase:
		if s.KnowledgeBase != nil {
			return knowledgeData(s.KnowledgeBase), true
		}
	case NameActiveEditor:
		if e := s.ActiveEditor; e != nil {
			if lazy {
				return editorFields{e}, true
			}
			return editorData(e), true
		}
	case NameGlobalPrompts:
		if s.GlobalPrompts != nil {
			l := make([]any, len(s.GlobalPrompts))
			for k, p := range s.GlobalPrompts {
				l[k] = map[string]any{"role": p.Role, "content": p.Content}
			}
			return l, true
		}
	case NamePackageFiles:
		if s.PackageFiles != nil {
			l := make([]any, len(s.PackageFiles))
			for k, f := range s.PackageFiles {
				l[k] = map[string]any{"filepath": f.Filepath, "content": f.Content}
			}
			return l, true
		}
	}
	return nil, false
}

func stringsData(ss []string) []any {
	l := make([]any, len(ss))
	for k, s := range ss {
		l[k] = s
	}
	return l
}

func knowledgeData(kbs []KnowledgeBase) []any {
	l := make([]any, len(kbs))
	for k, kb := range kbs {
		m := map[string]any{"knowledgeBaseId": kb.KnowledgeBaseID}
		if kb.References != nil {
			refs := make([]any, len(kb.References))
			for j, r := range kb.References {
				md := map[string]any{
					"fileName": r.Metadata.FileName, "sourceType": r.Metadata.SourceType, "source": r.Metadata.Source,
				}
				if r.Metadata.StartPos != nil {
					md["startPos"] = *r.Metadata.StartPos
				}
				if r.Metadata.EndPos != nil {
					md["endPos"] = *r.Metadata.EndPos
				}
				refs[j] = map[string]any{"score": r.Score, "chunk": r.Chunk, "metadata": md}
			}
			m["references"] = refs
		}
		l[k] = m
	}
	return l
}

func editorData(e *Editor) map[string]any {
	ranges := rangesData(e)
	// Sized for all its keys at once: growing past a small map's eight
	// slots would build it twice.
	m := make(map[string]any, 12)
	setPosition(m, e.Content, e.StartLine, e.StartColumn, e.EndLine, e.EndColumn)
	m["filePath"] = e.FilePath
	m["language"] = e.Language
	m["cursorOffset"] = e.CursorOffset
	m["selectedRanges"] = ranges
	m["selectedText"] = selectedText(e)
	if len(ranges) > 0 {
		m["selection"] = ranges[0]
	}
	if v := e.VisibleRange; v != nil {
		m["visibleRange"] = positionData(v.Content, v.StartLine, v.StartColumn, v.EndLine, v.EndColumn)
	}
	return m
}

func rangesData(e *Editor) []any {
	ranges := make([]any, len(e.SelectedRanges))
	for k := range e.SelectedRanges {
		ranges[k] = rangeData(&e.SelectedRanges[k])
	}
	return ranges
}

func rangeData(r *Range) map[string]any {
	m := positionData(r.Content, r.StartLine, r.StartColumn, r.EndLine, r.EndColumn)
	if r.ContentBeforeSelection != nil {
		m["contentBeforeSelection"] = *r.ContentBeforeSelection
	}
	if r.ContentAfterSelection != nil {
		m["contentAfterSelection"] = *r.ContentAfterSelection
	}
	return m
}

// selectedText is the selected ranges' content joined by "\n".
func selectedText(e *Editor) string {
	switch len(e.SelectedRanges) {
	case 0:
		return ""
	case 1:
		return e.SelectedRanges[0].Content
	}
	texts := make([]string, len(e.SelectedRanges))
	for k, r := range e.SelectedRanges {
		texts[k] = r.Content
	}
	return strings.Join(texts, "\n")
}

// editorFields is activeEditor's template data, field by field.
type editorFields struct{ e *Editor }

// Field implements Fields.
func (f editorFields) Field(name string) (any, bool) {
	e := f.e
	if v, ok := positionField(name, e.Content, e.StartLine, e.StartColumn, e.EndLine, e.EndColumn); ok {
		return v, true
	}
	switch name {
	case "filePath":
		return e.FilePath, true
	case "language":
		return e.Language, true
	case "cursorOffset":
		return e.CursorOffset, true
	case "selectedRanges":
		return rangesData(e), true
	case "selectedText":
		return selectedText(e), true
	case "selection":
		if len(e.SelectedRanges) > 0 {
			return rangeFields{&e.SelectedRanges[0]}, true
		}
	case "visibleRange":
		if v := e.VisibleRange; v != nil {
			return positionData(v.Content, v.StartLine, v.StartColumn, v.EndLine, v.EndColumn), true
		}
	}
	return nil, false
}

// Map implements Fields.
func (f editorFields) Map() map[string]any { return editorData(f.e) }

// rangeFields is a selected range's template data, field by field.
type rangeFields struct{ r *Range }

// Field implements Fields.
func (f rangeFields) Field(name string) (any, bool) {
	r := f.r
	if v, ok := positionField(name, r.Content, r.StartLine, r.StartColumn, r.EndLine, r.EndColumn); ok {
		return v, true
	}
	switch name {
	case "contentBeforeSelection":
		if r.ContentBeforeSelection != nil {
			return *r.ContentBeforeSelection, true
		}
	case "contentAfterSelection":
		if r.ContentAfterSelection != nil {
			return *r.ContentAfterSelection, true
		}
	}
	return nil, false
}

// Map implements Fields.
func (f rangeFields) Map() map[string]any { return rangeData(f.r) }

func positionData(content string, sl, sc, el, ec int) map[string]any {
	m := make(map[string]any, 7) // room for a range's before and after
	setPosition(m, content, sl, sc, el, ec)
	return m
}

// positionField is the field of positionData's map, field by field.
func positionField(name, content string, sl, sc, el, ec int) (any, bool) {
	switch name {
	case "content":
		return content, true
	case "startLine":
		return sl, true
	case "startColumn":
		return sc, true
	case "endLine":
		return el, true
	case "endColumn":
		return ec, true
	}
	return nil, false
}

func setPosition(m map[string]any, content string, sl, sc, el, ec int) {
	m["content"], m["startLine"], m["startColumn"], m["endLine"], m["endColumn"] = content, sl, sc, el, ec
}
