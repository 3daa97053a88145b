package regexptest

import (
	"regexp"
	"testing"
)

func TestInsts(t *testing.T) {
	for _, tc := range []struct {
		pattern  string
		min, max int
	}{
		{`^[a-z]+$`, 1, 10},
		{`^[a-z][a-z]{0,127}$`, 128, 1000},
	} {
		if n := Insts(regexp.MustCompile(tc.pattern)); n < tc.min || n > tc.max {
			t.Errorf("Insts(%s) = %d, want %d to %d", tc.pattern, n, tc.min, tc.max)
		}
	}
}
