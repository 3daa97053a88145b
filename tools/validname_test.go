package tools

import (
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/regexptest"
)

// TestValidNameBounds: the length and the characters accepted, at their
// limits, and a pattern that compiles small (it is held from the start of
// the process: the counted repetition it had made 0.06-0.1 MB of it).
func TestValidNameBounds(t *testing.T) {
	for _, tc := range []struct {
		s  string
		ok bool
	}{
		{strings.Repeat("a", 64), true},
		{strings.Repeat("a", 64+1), false},
		{"", false},
		{"a", true},
		{"a_b-C0", true},
		{"a.b", false},
		{"a/b", false},
		{"a b", false},
		{"a\n", false},
		{"\u00e9t\u00e9", false},
	} {
		if got := validName(tc.s); got != tc.ok {
			t.Errorf("validName(%q) = %v, want %v", tc.s, got, tc.ok)
		}
	}
	if n := regexptest.Insts(nameRE); n > 20 {
		t.Errorf("nameRE compiles to %d instructions, want at most 20", n)
	}
}
