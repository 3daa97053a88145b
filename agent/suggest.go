package agent

import "github.com/agentgw/agentgw/internal/suggest"

// Closest returns the candidate nearest to name, or "" when none is close
// enough to be a plausible typo.
func Closest(name string, candidates []string) string { return suggest.Closest(name, candidates) }

// DidYouMean renders a "; did you mean X?" suffix for the candidate closest
// to name, or "" when none is close.
func DidYouMean(name string, candidates []string) string {
	if c := Closest(name, candidates); c != "" {
		return "; did you mean \"" + c + "\"?"
	}
	return ""
}
