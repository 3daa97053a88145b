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
	if s.Has(NameUserInputPrompt) {
		m[NameUserInputPrompt] = s.UserInputPrompt
	}
	if u := s.UserInfo; u != nil {
		m[NameUserInfo] = map[string]any{"id": u.ID, "name": u.Name, "nickname": u.Nickname}
	}
	if v := s.VCS; v != nil {
		m[NameVCS] = map[string]any{
			"type": v.Type, "branchName": v.BranchName, "upstreamBranchName": v.UpstreamBranchName,
			"remoteUrl": v.RemoteURL, "remotes": stringsData(v.Remotes),
		}
	}
	if s.KnowledgeBase != nil {
		m[NameKnowledgeBase] = knowledgeData(s.KnowledgeBase)
	}
	if s.ActiveEditor != nil {
		m[NameActiveEditor] = editorData(s.ActiveEditor)
	}
	if s.GlobalPrompts != nil {
		l := make([]any, len(s.GlobalPrompts))
		for k, p := range s.GlobalPrompts {
			l[k] = map[string]any{"role": p.Role, "content": p.Content}
		}
		m[NameGlobalPrompts] = l
	}
	if s.PackageFiles != nil {
		l := make([]any, len(s.PackageFiles))
		for k, f := range s.PackageFiles {
			l[k] = map[string]any{"filepath": f.Filepath, "content": f.Content}
		}
		m[NamePackageFiles] = l
	}
	for name, v := range s.Other {
		if !isKnown(name) {
			m[name] = v
		}
	}
	return m
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
	ranges := make([]any, len(e.SelectedRanges))
	texts := make([]string, len(e.SelectedRanges))
	for k, r := range e.SelectedRanges {
		rm := positionData(r.Content, r.StartLine, r.StartColumn, r.EndLine, r.EndColumn)
		if r.ContentBeforeSelection != nil {
			rm["contentBeforeSelection"] = *r.ContentBeforeSelection
		}
		if r.ContentAfterSelection != nil {
			rm["contentAfterSelection"] = *r.ContentAfterSelection
		}
		ranges[k] = rm
		texts[k] = r.Content
	}
	// Sized for all its keys at once: growing past a small map's eight
	// slots would build it twice.
	m := make(map[string]any, 13)
	setPosition(m, e.Content, e.StartLine, e.StartColumn, e.EndLine, e.EndColumn)
	m["filePath"] = e.FilePath
	m["language"] = e.Language
	m["cursorOffset"] = e.CursorOffset
	m["selectedRanges"] = ranges
	m["selectedText"] = strings.Join(texts, "\n")
	if len(ranges) > 0 {
		m["selection"] = ranges[0]
	}
	if v := e.VisibleRange; v != nil {
		m["visibleRange"] = positionData(v.Content, v.StartLine, v.StartColumn, v.EndLine, v.EndColumn)
	}
	return m
}

func positionData(content string, sl, sc, el, ec int) map[string]any {
	m := make(map[string]any, 7) // room for a range's before and after
	setPosition(m, content, sl, sc, el, ec)
	return m
}

func setPosition(m map[string]any, content string, sl, sc, el, ec int) {
	m["content"], m["startLine"], m["startColumn"], m["endLine"], m["endColumn"] = content, sl, sc, el, ec
}
