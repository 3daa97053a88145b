package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWorkdirConfinement(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	outside := t.TempDir()
	base := filepath.Join(root, "agents")
	for _, d := range []string{base, filepath.Join(root, "repo"), filepath.Join(base, "sub"), filepath.Join(outside, "x")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(base, "link-out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "repo"), filepath.Join(base, "link-in")); err != nil {
		t.Fatal(err)
	}
	relOut, err := filepath.Rel(base, outside)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(relOut, filepath.Join(base, "rel-link-out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../repo", filepath.Join(base, "rel-link-in")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		roots   []string
		workdir string
		want    string // resolved dir relative to root, or "" for an error
		substr  string
	}{
		{"empty is base", nil, "", "agents", ""},
		{"below base", nil, "sub", "agents/sub", ""},
		{"dot dot out of base", nil, "..", "", "outside the allowed roots"},
		{"sibling via dot dot in roots", []string{root}, "../repo", "repo", ""},
		{"dot dot past roots", []string{root}, "../..", "", "outside the allowed roots"},
		{"absolute outside", []string{root}, outside, "", "outside the allowed roots"},
		{"symlink out", []string{root}, "link-out", "", "outside the allowed roots"},
		{"symlink in", []string{root}, "link-in", "repo", ""},
		{"relative symlink out", []string{root}, "rel-link-out", "", "outside the allowed roots"},
		{"relative symlink in", []string{root}, "rel-link-in", "repo", ""},
		{"relative symlink out of base", nil, "rel-link-in", "", "outside the allowed roots"},
		{"through a symlink out", []string{root}, "link-out/x", "", "outside the allowed roots"},
		{"missing", []string{root}, "nope", "", "no such file"},
		{"base not in roots but workdir is", []string{filepath.Join(root, "repo")}, "../repo", "repo", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := NewManager(Config{WorkRoots: tc.roots})
			tool, _, err := m.Compile(Spec{Name: "w", Runtime: "frontend", Workdir: tc.workdir}, base)
			if tc.want == "" {
				if err == nil || !strings.Contains(err.Error(), tc.substr) {
					t.Fatalf("err %v, want one with %q", err, tc.substr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(root, tc.want)
			if real, err := filepath.EvalSymlinks(want); err == nil && tc.workdir != "" {
				want = real
			}
			if tool.dir != want {
				t.Errorf("dir %s, want %s", tool.dir, want)
			}
		})
	}
}
