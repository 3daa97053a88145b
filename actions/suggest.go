package actions

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentgw/agentgw/internal/suggest"
)

// closest returns the candidate most likely meant by name: one that equals
// it ignoring case, else the nearest of those longer than two characters
// (runes). A candidate of one or two characters only matches ignoring case,
// so node properties such as "ip" are not typos of "id", while "pd" still
// reads as "pId".
func closest(name string, candidates []string) (string, bool) {
	var buf [8]string
	long := buf[:0]
	for _, c := range candidates {
		if strings.EqualFold(name, c) {
			return c, true
		}
		if utf8.RuneCountInString(c) > 2 {
			long = append(long, c)
		}
	}
	c := suggest.Closest(name, long)
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
