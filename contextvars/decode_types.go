package contextvars

// The typed decoders of the known variables. Each consumes one value at the
// parser's position; unknown members are validated and skipped.

func (p *parser) userInfo(u *UserInfo) error {
	return p.fields(func(key []byte) error {
		switch matchKey(key, "id", "name", "nickname") {
		case "id":
			return p.str(&u.ID)
		case "name":
			return p.str(&u.Name)
		case "nickname":
			return p.str(&u.Nickname)
		}
		return p.Skip()
	})
}

func (p *parser) vcs(v *VCS) error {
	return p.fields(func(key []byte) error {
		switch matchKey(key, "type", "branchName", "upstreamBranchName", "remoteUrl", "remotes") {
		case "type":
			return p.str(&v.Type)
		case "branchName":
			return p.str(&v.BranchName)
		case "upstreamBranchName":
			return p.str(&v.UpstreamBranchName)
		case "remoteUrl":
			return p.str(&v.RemoteURL)
		case "remotes":
			return decodeSlice(p, &v.Remotes, p.str)
		}
		return p.Skip()
	})
}

func (p *parser) knowledgeBase(kb *KnowledgeBase) error {
	return p.fields(func(key []byte) error {
		switch matchKey(key, "knowledgeBaseId", "references") {
		case "knowledgeBaseId":
			return p.str(&kb.KnowledgeBaseID)
		case "references":
			return decodeSlice(p, &kb.References, p.reference)
		}
		return p.Skip()
	})
}

func (p *parser) reference(r *Reference) error {
	return p.fields(func(key []byte) error {
		switch matchKey(key, "score", "chunk", "metadata") {
		case "score":
			return p.float(&r.Score)
		case "chunk":
			return p.str(&r.Chunk)
		case "metadata":
			return p.metadata(&r.Metadata)
		}
		return p.Skip()
	})
}

func (p *parser) metadata(m *ReferenceMetadata) error {
	return p.fields(func(key []byte) error {
		switch matchKey(key, "fileName", "sourceType", "source", "startPos", "endPos") {
		case "fileName":
			return p.str(&m.FileName)
		case "sourceType":
			return p.str(&m.SourceType)
		case "source":
			return p.str(&m.Source)
		case "startPos":
			return p.posPtr(&m.StartPos)
		case "endPos":
			return p.posPtr(&m.EndPos)
		}
		return p.Skip()
	})
}

func (p *parser) editor(e *Editor) error {
	return p.fields(func(key []byte) error {
		switch k := matchKey(key, "filePath", "language", "content", "cursorOffset", "startLine",
			"startColumn", "endLine", "endColumn", "selectedRanges", "visibleRange"); k {
		case "filePath":
			return p.str(&e.FilePath)
		case "language":
			return p.str(&e.Language)
		case "content":
			return p.str(&e.Content)
		case "cursorOffset":
			return p.posVal(&e.CursorOffset)
		case "startLine", "endLine":
			return p.lineVal(position(k, &e.StartLine, &e.StartColumn, &e.EndLine, &e.EndColumn))
		case "startColumn", "endColumn":
			return p.posVal(position(k, &e.StartLine, &e.StartColumn, &e.EndLine, &e.EndColumn))
		case "selectedRanges":
			return decodeSlice(p, &e.SelectedRanges, p.selectedRange)
		case "visibleRange":
			if null, err := p.IsNull(); null || err != nil {
				e.VisibleRange = nil
				return err
			}
			if e.VisibleRange == nil { // a repeated key merges, as in encoding/json
				e.VisibleRange = new(Span)
			}
			return p.span(e.VisibleRange)
		}
		return p.Skip()
	})
}

// position picks the field of the four positions that k names.
func position(k string, sl, sc, el, ec *int) *int {
	switch k {
	case "startLine":
		return sl
	case "startColumn":
		return sc
	case "endLine":
		return el
	}
	return ec
}

func (p *parser) selectedRange(r *Range) error {
	return p.fields(func(key []byte) error {
		switch k := matchKey(key, "content", "startLine", "startColumn", "endLine", "endColumn",
			"contentBeforeSelection", "contentAfterSelection"); k {
		case "content":
			return p.str(&r.Content)
		case "startLine", "endLine":
			return p.lineVal(position(k, &r.StartLine, &r.StartColumn, &r.EndLine, &r.EndColumn))
		case "startColumn", "endColumn":
			return p.posVal(position(k, &r.StartLine, &r.StartColumn, &r.EndLine, &r.EndColumn))
		case "contentBeforeSelection":
			return p.strPtr(&r.ContentBeforeSelection)
		case "contentAfterSelection":
			return p.strPtr(&r.ContentAfterSelection)
		}
		return p.Skip()
	})
}

func (p *parser) span(s *Span) error {
	return p.fields(func(key []byte) error {
		switch k := matchKey(key, "content", "startLine", "startColumn", "endLine", "endColumn"); k {
		case "content":
			return p.str(&s.Content)
		case "startLine", "endLine":
			return p.lineVal(position(k, &s.StartLine, &s.StartColumn, &s.EndLine, &s.EndColumn))
		case "startColumn", "endColumn":
			return p.posVal(position(k, &s.StartLine, &s.StartColumn, &s.EndLine, &s.EndColumn))
		}
		return p.Skip()
	})
}

func (p *parser) prompt(pr *Prompt) error {
	return p.fields(func(key []byte) error {
		switch matchKey(key, "role", "content") {
		case "role":
			return p.str(&pr.Role)
		case "content":
			return p.str(&pr.Content)
		}
		return p.Skip()
	})
}

func (p *parser) packageFile(f *PackageFile) error {
	return p.fields(func(key []byte) error {
		switch matchKey(key, "filepath", "content") {
		case "filepath":
			return p.str(&f.Filepath)
		case "content":
			return p.str(&f.Content)
		}
		return p.Skip()
	})
}
