package contextvars

import "strings"

// The names of the context variables of PROTOCOL.md section 6.
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
	return []string{
		NameUserInputPrompt, NameUserInfo, NameVCS, NameKnowledgeBase,
		NameActiveEditor, NameGlobalPrompts, NamePackageFiles,
	}
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
	return closest(name, KnownNames())
}

// closest returns the candidate nearest to s by edit distance (ignoring case),
// or "" when none is close enough to be a plausible typo.
func closest(s string, candidates []string) string {
	ls := strings.ToLower(s)
	best, bestDist := "", -1
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := editDistance(ls, lc)
		limit := max(2, len(lc)/3)
		if ls != "" && (strings.Contains(lc, ls) || strings.Contains(ls, lc)) {
			d = min(d, limit)
		}
		if d <= limit && (bestDist < 0 || d < bestDist) {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, by bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
