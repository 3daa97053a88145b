package confine

import "testing"

func TestWithin(t *testing.T) {
	for _, tt := range []struct {
		root, p string
		want    bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b", "/a/b/c", true},
		{"/a/b", "/a/b/..c", true},
		{"/a/b", "/a/bc", false},
		{"/a/b", "/a", false},
		{"/a/b", "/a/c/d", false},
		{"/", "/anything", true},
	} {
		if got := Within(tt.root, tt.p); got != tt.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tt.root, tt.p, got, tt.want)
		}
	}
}
