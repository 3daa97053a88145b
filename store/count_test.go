package store

import "testing"

func TestPrefixEnd(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"pause/", "pause0"}, {"a\xff", "b"}, {"\xff\xff", ""}, {"", ""},
	} {
		if got := PrefixEnd(tc.in); got != tc.want {
			t.Errorf("PrefixEnd(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
