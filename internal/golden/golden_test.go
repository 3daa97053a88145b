package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records failures instead of stopping.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true; panic(r) }
func (r *recorder) Fatal(...any)          { r.failed = true; panic(r) }

// check runs Check and reports whether it failed.
func check(t *testing.T, path string, got []byte) (failed bool) {
	r := &recorder{TB: t}
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
		failed = r.failed
	}()
	Check(r, path, got)
	return r.failed
}

func TestCheck(t *testing.T) {
	if *update {
		t.Skip("compares files it writes itself")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "x.golden")
	if err := os.WriteFile(path, []byte("same\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		path   string
		got    string
		failed bool
	}{
		{"equal", path, "same\n", false},
		{"different", path, "other\n", true},
		{"one byte short", path, "same", true},
		{"missing file", filepath.Join(dir, "none.golden"), "same\n", true},
	}
	for _, tt := range tests {
		if got := check(t, tt.path, []byte(tt.got)); got != tt.failed {
			t.Errorf("%s: failed = %v, want %v", tt.name, got, tt.failed)
		}
	}
}

func TestCheckUpdate(t *testing.T) {
	*update = true
	defer func() { *update = false }()
	path := filepath.Join(t.TempDir(), "sub", "y.golden")
	if check(t, path, []byte("new\n")) {
		t.Fatal("Check failed under -update")
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "new\n" {
		t.Fatalf("file after -update: %q, %v", b, err)
	}
}
