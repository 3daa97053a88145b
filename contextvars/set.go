package contextvars

import (
	"slices"
	"sort"
)

// Set is the decoded context of one request.
type Set struct {
	// UserInputPrompt is what the user typed.
	UserInputPrompt string
	// UserInfo is the current user, nil when absent.
	UserInfo *UserInfo
	// VCS is the workspace's version control state, nil when absent.
	VCS *VCS
	// KnowledgeBase lists knowledge bases and their references, nil when absent.
	KnowledgeBase []KnowledgeBase
	// ActiveEditor is the editor the user is looking at, nil when absent.
	ActiveEditor *Editor
	// GlobalPrompts are rules placed before the user's question, nil when absent.
	GlobalPrompts []Prompt
	// PackageFiles are the project's package manager files, nil when absent.
	PackageFiles []PackageFile
	// Other holds variables with unknown names, their values decoded
	// generically (numbers as float64), kept for templates.
	Other map[string]any

	// order lists the names present in the request, in request order.
	order []string
	// promptGiven records that userInputPrompt was in the request (even empty).
	promptGiven bool
	// trim remembers how Cut windowed the active editor's content.
	trim contentTrim
}

// contentTrim records that Cut dropped the first lines of editor's content.
type contentTrim struct {
	editor  *Editor
	dropped int
}

// droppedLines returns how many leading lines of e.Content Cut removed.
func (s *Set) droppedLines(e *Editor) int {
	if s.trim.editor == e {
		return s.trim.dropped
	}
	return 0
}

// Has reports whether the variable is present: given in the request (and not
// removed since) or set by code (a non-nil field, a non-empty prompt, a key of
// Other).
func (s *Set) Has(name string) bool {
	switch name {
	case NameUserInputPrompt:
		return s.promptGiven || s.UserInputPrompt != ""
	case NameUserInfo:
		return s.UserInfo != nil
	case NameVCS:
		return s.VCS != nil
	case NameKnowledgeBase:
		return s.KnowledgeBase != nil
	case NameActiveEditor:
		return s.ActiveEditor != nil
	case NameGlobalPrompts:
		return s.GlobalPrompts != nil
	case NamePackageFiles:
		return s.PackageFiles != nil
	}
	_, ok := s.Other[name]
	return ok
}

// Names returns the present variables: those of the request in request order,
// then known ones set by code in KnownNames order, then other ones set by
// code, sorted.
func (s *Set) Names() []string {
	var out []string
	for _, n := range s.order {
		if s.Has(n) {
			out = append(out, n)
		}
	}
	for _, n := range KnownNames() {
		if s.Has(n) && !slices.Contains(s.order, n) {
			out = append(out, n)
		}
	}
	var extra []string
	for n := range s.Other {
		if !slices.Contains(s.order, n) && !isKnown(n) {
			extra = append(extra, n)
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}
