package contextvars

import (
	"slices"

	"github.com/agentgw/agentgw/internal/suggest"
)

// The names of the context variables of docs/protocol.md §6.
const (
	// NameUserInputPrompt is what the user typed (a string).
	NameUserInputPrompt = "userInputPrompt"
	// NameUserInfo is the current user ({id, name, nickname}).
	NameUserInfo = "userInfo"
	// NameVCS is the workspace's version control information.
	NameVCS = "vcs"
	// NameKnowledgeBase is the list of knowledge bases and their recalled references.
	NameKnowledgeBase = "knowledgeBase"
	// NameActiveEditor is the editor the user is looking at.
	NameActiveEditor = "activeEditor"
	// NameGlobalPrompts are rules placed before the user's question.
	NameGlobalPrompts = "globalPrompts"
	// NamePackageFiles are the project's package manager files.
	NamePackageFiles = "packageFiles"
)

// KnownNames returns the names of the seven context variables of the protocol,
// in protocol order, as a fresh slice the caller may modify.
func KnownNames() []string {
	return slices.Clone(knownNames[:])
}

// knownNames are the names KnownNames returns.
var knownNames = [...]string{
	NameUserInputPrompt, NameUserInfo, NameVCS, NameKnowledgeBase,
	NameActiveEditor, NameGlobalPrompts, NamePackageFiles,
}

// isKnown reports whether name is one of KnownNames.
func isKnown(name string) bool {
	switch name {
	case NameUserInputPrompt, NameUserInfo, NameVCS, NameKnowledgeBase,
		NameActiveEditor, NameGlobalPrompts, NamePackageFiles:
		return true
	}
	return false
}

// SuggestName returns the known variable name closest to name (for a
// "did you mean" hint), or "" when none is close or name is itself known.
func SuggestName(name string) string {
	if isKnown(name) {
		return ""
	}
	return suggest.Closest(name, knownNames[:])
}
