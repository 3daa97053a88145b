package exclude

import (
	"context"
	"unicode/utf8"

	"github.com/agentgw/agentgw/agent/stage"
	"github.com/agentgw/agentgw/contextvars"
)

// Where withheld content was, as Stage.Withheld and package guard count
// it.
const (
	WhereEditor    = "activeEditor"
	WherePackages  = "packageFiles"
	WhereKnowledge = "knowledgeBase"
	WhereTool      = "tool_result"
)

// Stage withholds the excluded files of a request's context variables,
// after the recall stage put the knowledge bases' references there: the
// active editor's content, selections and visible range, package files'
// content, references' chunks, each replaced by its Note. It is
// registered in cmd/agentgw's requestStages.
type Stage struct {
	// Policies give each agent's policy.
	Policies Policies
	// Withheld, when set, counts n files withheld from where (a metric).
	Withheld func(where string, n int)
}

var _ stage.Stage = Stage{}

// Name implements stage.Stage.
func (Stage) Name() string { return "contentExclusion" }

// Prepare implements stage.Stage. With an empty policy it does nothing.
func (s Stage) Prepare(_ context.Context, p stage.Prepared) error {
	pol := s.Policies.For(p.Agent())
	if pol.Empty() {
		return nil
	}
	w := Withhold(pol, p.Context())
	if len(w) == 0 {
		return nil
	}
	files := make([]string, 0, len(w))
	for _, f := range w {
		files = append(files, f.Where+":"+f.Path)
		if s.Withheld != nil {
			s.Withheld(f.Where, 1)
		}
	}
	p.Logger().Info("content withheld from the model by the content exclusion policy", "files", files)
	return nil
}

// Withheld is a file whose content was withheld: where it was, and its
// path.
type Withheld struct {
	Where, Path string
}

// Withhold replaces the content of the files of set that pol excludes by
// their Note, and returns them.
func Withhold(pol *Policy, set *contextvars.Set) []Withheld {
	if pol.Empty() || set == nil {
		return nil
	}
	var out []Withheld
	if e := set.ActiveEditor; e != nil && pol.Match(e.FilePath) {
		withholdEditor(e)
		out = append(out, Withheld{WhereEditor, e.FilePath})
	}
	for i := range set.PackageFiles {
		f := &set.PackageFiles[i]
		if pol.Match(f.Filepath) {
			f.Content = Note(f.Filepath)
			out = append(out, Withheld{WherePackages, f.Filepath})
		}
	}
	for i := range set.KnowledgeBase {
		refs := set.KnowledgeBase[i].References
		for j := range refs {
			m := refs[j].Metadata
			name := m.FileName
			if !pol.Match(name) && !pol.Match(m.Source) {
				continue
			}
			if name == "" {
				name = m.Source
			}
			refs[j].Chunk = Note(name)
			out = append(out, Withheld{WhereKnowledge, name})
		}
	}
	return out
}

// withholdEditor replaces what e shows of its file by the Note: its
// content, each selection and the visible range are the note, a file of
// one line, and the text around the selections is dropped.
func withholdEditor(e *contextvars.Editor) {
	note := Note(e.FilePath)
	end := utf8.RuneCountInString(note) + 1
	e.Content = note
	e.CursorOffset = 0
	e.StartLine, e.StartColumn, e.EndLine, e.EndColumn = 1, 1, 1, end
	for i := range e.SelectedRanges {
		e.SelectedRanges[i] = contextvars.Range{Content: note, StartLine: 1, StartColumn: 1, EndLine: 1, EndColumn: end}
	}
	if e.VisibleRange != nil {
		e.VisibleRange = &contextvars.Span{Content: note, StartLine: 1, StartColumn: 1, EndLine: 1, EndColumn: end}
	}
}
