package conversation

import (
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/regexptest"
)

// TestValidIDBounds: the length and the characters accepted, at their
// limits, and a pattern that compiles small (it is held from the start of
// the process: the counted repetition it had made 0.06-0.1 MB of it).
func TestValidIDBounds(t *testing.T) {
	for _, tc := range []struct {
		s  string
		ok bool
	}{
		{strings.Repeat("a", 128), true},
		{strings.Repeat("a", 128+1), false},
		{"", false},
		{"a", true},
		{"0a.b_c:d-E", true},
		{"-a", true},
		{"a/b", false},
		{"a b", false},
		{"a\n", false},
		{"\u00e9t\u00e9", false},
	} {
		if got := ValidID(tc.s); got != tc.ok {
			t.Errorf("ValidID(%q) = %v, want %v", tc.s, got, tc.ok)
		}
	}
	if n := regexptest.Insts(idPattern); n > 20 {
		t.Errorf("idPattern compiles to %d instructions, want at most 20", n)
	}
}
