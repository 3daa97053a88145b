package actions

import (
	"fmt"
	"strings"

	"github.com/agentgw/agentgw/internal/suggest"
)

// closest returns the candidate most likely meant by name. A candidate of
// one or two characters only matches ignoring case: node properties such as
// "ip" are not typos of "id".
func closest(name string, candidates []string) (string, bool) {
	c := suggest.Closest(name, candidates)
	if len(c) <= 2 && !strings.EqualFold(c, name) {
		c = ""
	}
	return c, c != ""
}

// didYouMean is the end of a message about an unknown name: a suggestion
// when one is close, else the list of known names.
func didYouMean(name string, known []string) string {
	if s, ok := closest(name, known); ok {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	if len(known) == 0 {
		return ""
	}
	return fmt.Sprintf(" (known: %s)", strings.Join(known, ", "))
}
