package suggest

import "testing"

func TestClosest(t *testing.T) {
	known := []string{"activeEditor", "userInfo", "default", "message", "name", "id"}
	tests := []struct{ name, want string }{
		{"activeEdtior", "activeEditor"}, // a swap
		{"ACTIVEEDITOR", "activeEditor"}, // case
		{"defualt", "default"},
		{"mesage", "message"},
		{"nmae", "name"},
		{"ID", "id"},
		{"ix", "id"},      // one slip in two letters
		{"x", ""},         // too short to guess
		{"zzzzzz", ""},    // nothing close
		{"something", ""}, // nothing close
	}
	for _, tc := range tests {
		if got := Closest(tc.name, known); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"abc", "abc", 0}, {"abc", "acb", 1}, {"kitten", "sitting", 3}, {"héllo", "hello", 1},
	}
	for _, tc := range tests {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func FuzzClosest(f *testing.F) {
	f.Add("activeEdtior", "activeEditor")
	f.Fuzz(func(t *testing.T, name, candidate string) {
		if got := Closest(name, []string{candidate}); got != "" && got != candidate {
			t.Fatalf("Closest returned %q, not a candidate", got)
		}
		if Distance(name, candidate) != Distance(candidate, name) {
			t.Fatal("Distance is not symmetric")
		}
	})
}
