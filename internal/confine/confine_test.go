package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestResolve(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	for _, d := range []string{"a/b", "c"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "a/b/f.txt"), []byte("in"), 0o644); err != nil {
		t.Fatal(err)
	}
	relOut, err := filepath.Rel(filepath.Join(dir, "c"), outside)
	if err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"c/rel-in": "../a/b", "c/abs-in": filepath.Join(dir, "a"), "c/chain": "rel-in/f.txt",
		"c/rel-out": relOut, "c/abs-out": outside, "c/up": "..", "c/up-out": "../..", "loop": "loop",
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Skipf("symlinks: %v", err)
		}
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tests := []struct {
		rel, want string
		err       error
	}{
		{"", ".", nil},
		{".", ".", nil},
		{"a/b/f.txt", "a/b/f.txt", nil},
		{"c/rel-in/f.txt", "a/b/f.txt", nil},
		{"c/abs-in/b", "a/b", nil},
		{"c/chain", "a/b/f.txt", nil},
		{"a/b/missing", "", fs.ErrNotExist},
		{"..", "", ErrOutside},
		{"a/../..", "", ErrOutside},
		{"/etc", "", ErrOutside},
		{"c/rel-out/x", "", ErrOutside},
		{"c/abs-out", "", ErrOutside},
		{"c/up/a/b/f.txt", "a/b/f.txt", nil},
		{"c/up-out/x", "", ErrOutside},
	}
	for _, tt := range tests {
		got, err := r.Resolve(tt.rel)
		if got != tt.want || !errors.Is(err, tt.err) && !(tt.err == nil && err == nil) {
			t.Errorf("Resolve(%q) = %q, %v; want %q, %v", tt.rel, got, err, tt.want, tt.err)
		}
	}
	if _, err := r.Resolve("loop"); err == nil {
		t.Error("Resolve(loop) succeeded")
	}
}

// TestIsEscape pins the standard library's message IsEscape recognises:
// os.Root refusing a path that climbs out.
func TestIsEscape(t *testing.T) {
	r, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, err = r.Stat("../x")
	if !IsEscape(err) {
		t.Fatalf("os.Root's error for ../x is %v, which IsEscape does not recognise", err)
	}
	if IsEscape(fs.ErrNotExist) || IsEscape(nil) {
		t.Error("IsEscape recognises other errors")
	}
}
