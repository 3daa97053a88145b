package dbconn

import "testing"

func TestRebind(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"SELECT ? + ?", "SELECT $1 + $2"},
		{"INSERT INTO t VALUES " + Values(2, 3), "INSERT INTO t VALUES ($1, $2, $3), ($4, $5, $6)"},
		{"x IN (" + Placeholders(1) + ")", "x IN ($1)"},
	} {
		if got := Rebind(tc.in); got != tc.want {
			t.Errorf("Rebind(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if Placeholders(0) != "" || Values(0, 2) != "" {
		t.Error("zero placeholders are not empty")
	}
}
