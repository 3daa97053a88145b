package tools

import "github.com/agentgw/agentgw/internal/suggest"

// closest returns the candidate most likely meant by name.
func closest(name string, candidates []string) (string, bool) {
	c := suggest.Closest(name, candidates)
	return c, c != ""
}
