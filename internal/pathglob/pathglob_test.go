package pathglob

import (
	"strings"
	"testing"
)

func TestMatchSegments(t *testing.T) {
	for _, tc := range []struct {
		pat, name string
		want      bool
	}{
		{"a/b", "a/b", true},
		{"a/b", "a/c", false},
		{"a/*", "a/b", true},
		{"a/*", "a/b/c", false},
		{"**", "", true},
		{"**", "a/b/c", true},
		{"a/**", "a", true},
		{"a/**", "a/b/c", true},
		{"**/c", "c", true},
		{"**/c", "a/b/c", true},
		{"**/c", "a/b/d", false},
		{"a/**/c", "a/c", true},
		{"a/**/c", "a/x/y/c", true},
		{"a/**/c", "b/x/c", false},
		{"a/**/b/**/c", "a/b/c", true},
		{"a/**/b/**/c", "a/x/c", false},
		{"*.go", "main.go", true},
		{"[", "[", false}, // malformed: matches nothing
		{"", "", true},    // one empty segment against one empty segment
	} {
		if got := MatchSegments(strings.Split(tc.pat, "/"), strings.Split(tc.name, "/")); got != tc.want {
			t.Errorf("MatchSegments(%q, %q) = %v, want %v", tc.pat, tc.name, got, tc.want)
		}
	}
	if !MatchSegments(nil, nil) || MatchSegments(nil, []string{"a"}) {
		t.Error("no pattern segments: want a match of no path segments only")
	}
}

// TestManyStars: many "**" against a long path that does not match stay
// polynomial (a backtracking matcher would not finish).
func TestManyStars(t *testing.T) {
	pat := strings.Split(strings.Repeat("**/a/", 40)+"b", "/")
	segs := strings.Split(strings.Repeat("a/", 200)+"c", "/")
	if MatchSegments(pat, segs) {
		t.Error("matched")
	}
}
