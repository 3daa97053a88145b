package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/toolspec"
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

// swapDir replaces the directory dir with what swap makes at its path
// (the original is kept renamed to dir+".orig", so the test still holds
// what it would see if the old directory were used).
func swapDir(t *testing.T, dir string, swap func(path string) error) {
	t.Helper()
	if err := os.Rename(dir, dir+".orig"); err != nil {
		t.Fatal(err)
	}
	if err := swap(dir); err != nil {
		t.Fatal(err)
	}
}

// swaps are what a directory resolved at load time is replaced with before
// a call: want is the directory the call must see, relative to the root
// ("" when the call must fail with substr). A call never sees outside.
var swaps = []struct {
	name   string
	swap   func(root, outside string) func(path string) error
	want   string
	substr string
}{
	{"symlink out", func(_, outside string) func(string) error {
		return func(p string) error { return os.Symlink(outside, p) }
	}, "", "outside the root"},
	{"relative symlink out", func(root, outside string) func(string) error {
		return func(p string) error {
			rel, err := filepath.Rel(filepath.Dir(p), outside)
			if err != nil {
				return err
			}
			return os.Symlink(rel, p)
		}
	}, "", "outside the root"},
	{"symlink in", func(root, _ string) func(string) error {
		return func(p string) error { return os.Symlink(filepath.Join(root, "other"), p) }
	}, "other", ""},
	{"relative symlink in", func(_, _ string) func(string) error {
		return func(p string) error { return os.Symlink("other", p) }
	}, "other", ""},
	{"recreated", func(_, _ string) func(string) error {
		return func(p string) error { return os.Mkdir(p, 0o755) }
	}, "wd", ""},
	{"a file", func(_, _ string) func(string) error {
		return func(p string) error { return os.WriteFile(p, nil, 0o644) }
	}, "", "not a directory"},
	{"gone", func(_, _ string) func(string) error {
		return func(string) error { return nil }
	}, "", "no such file"},
}

// swapRoots makes a root holding the directories wd and other, and a
// directory outside it; their paths have their symlinks resolved.
func swapRoots(t *testing.T) (root, outside string) {
	t.Helper()
	root, outside = realTempDir(t), realTempDir(t)
	for _, d := range []string{filepath.Join(root, "wd"), filepath.Join(root, "other")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

// realTempDir is a temporary directory with its symlinks resolved.
func realTempDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestWorkdirSwappedAfterLoad is the race between resolving a process
// tool's workdir (at load) and starting the process in it: the directory
// is swapped for a symlink between the two. The call opens the resolved
// directory through its root and starts the process in that open
// directory, so the process runs inside the root or not at all; it never
// starts outside (on the check-then-use code it ran in the outside
// directory).
func TestWorkdirSwappedAfterLoad(t *testing.T) {
	t.Parallel()
	for _, tc := range swaps {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root, outside := swapRoots(t)
			m := NewManager(Config{WorkRoots: []string{root}})
			spec := nativeSpec(t, "pwd")
			spec.Workdir = "wd"
			tool := mustCompile(t, m, spec, root)
			swapDir(t, filepath.Join(root, "wd"), tc.swap(root, outside))
			res := call(tool, nil)
			if res.Status == toolspec.StatusSuccess && res.Result == outside {
				t.Fatalf("the tool ran outside the root, in %s", outside)
			}
			if tc.want == "" {
				wantError(t, res, toolspec.StatusError, toolspec.CodeUnavailable, tc.substr)
				return
			}
			wantSuccess(t, res)
			if want := filepath.Join(root, tc.want); res.Result != want {
				t.Errorf("the tool ran in %v, want %s", res.Result, want)
			}
		})
	}
}
