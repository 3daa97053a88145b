package chat

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/chat/chattest"
)

// TestToolRootSymlinks: relative and absolute symlinks, chains and loops,
// and "..", through read_file; the os.Root underneath refuses whatever
// leads out of the workspace.
func TestToolRootSymlinks(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	chattest.WriteFile(t, dir, "calc/add.go", calcGo)
	chattest.WriteFile(t, outside, "secret.txt", "OUTSIDE-SECRET\n")
	relOut, err := filepath.Rel(filepath.Join(dir, "calc"), filepath.Join(outside, "secret.txt"))
	if err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"rel-in":        "calc/add.go",
		"calc/up-in":    "../calc/add.go",
		"chain":         "rel-in",
		"abs-in":        filepath.Join(dir, "calc", "add.go"),
		"calc/rel-out":  relOut,
		"abs-out":       filepath.Join(outside, "secret.txt"),
		"dir-rel-out":   "..",
		"loop-a":        "loop-b",
		"loop-b":        "loop-a",
		"calc/dangling": "missing.go",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			t.Skipf("symlinks: %v", err)
		}
	}
	addGo := `{"path":"%s","content":"package calc\n","startLine":1,"endLine":1,"truncated":false}`
	tests := []toolCase{
		{name: "a relative symlink inside", params: `{"path":"rel-in","endLine":1}`, want: strings.Replace(addGo, "%s", "rel-in", 1)},
		{name: "a relative symlink up and back in", params: `{"path":"calc/up-in","endLine":1}`, want: strings.Replace(addGo, "%s", "calc/up-in", 1)},
		{name: "a chain of symlinks", params: `{"path":"chain","endLine":1}`, want: strings.Replace(addGo, "%s", "chain", 1)},
		{name: "an absolute symlink inside", params: `{"path":"abs-in","endLine":1}`, want: strings.Replace(addGo, "%s", "abs-in", 1)},
		{name: "a relative symlink out", params: `{"path":"calc/rel-out"}`, code: "ERROR OUTSIDE_WORKSPACE"},
		{name: "an absolute symlink out", params: `{"path":"abs-out"}`, code: "ERROR OUTSIDE_WORKSPACE"},
		{name: "a symlink to the parent", params: `{"path":"dir-rel-out/secret.txt"}`, code: "ERROR OUTSIDE_WORKSPACE"},
		{name: "dot dot", params: `{"path":"../secret.txt"}`, code: "ERROR OUTSIDE_WORKSPACE"},
		{name: "a loop", params: `{"path":"loop-a"}`, code: "ERROR IO_ERROR"},
		{name: "a dangling symlink", params: `{"path":"calc/dangling"}`, code: "ERROR NOT_FOUND"},
	}
	runToolCases(t, dir, "read_file", tests)
}

// TestToolRootSwappedSymlink is the race the check-then-use confinement
// had: a path is resolved while its directory is a real one inside the
// workspace, then the directory is swapped for a symlink out of it
// (absolute or relative) before the tool opens the file. Opening by the
// checked path would now read the file outside; through the os.Root it is
// refused, whichever way it is opened.
func TestToolRootSwappedSymlink(t *testing.T) {
	for _, relative := range []bool{false, true} {
		t.Run(map[bool]string{false: "absolute", true: "relative"}[relative], func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			chattest.WriteFile(t, dir, "d/f.txt", "inside\n")
			chattest.WriteFile(t, outside, "f.txt", "OUTSIDE-SECRET\n")
			r, err := newToolRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			name, rel, fail := r.resolve("d/f.txt")
			if fail != nil {
				t.Fatal(fail)
			}
			info, fail := r.stat(name, rel)
			if fail != nil {
				t.Fatal(fail)
			}

			// The swap, after the path was resolved and checked.
			if err := os.RemoveAll(filepath.Join(dir, "d")); err != nil {
				t.Fatal(err)
			}
			target := outside
			if relative {
				if target, err = filepath.Rel(dir, outside); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(target, filepath.Join(dir, "d")); err != nil {
				t.Skipf("symlinks: %v", err)
			}
			if data, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(name))); err != nil || string(data) != "OUTSIDE-SECRET\n" {
				t.Fatalf("the swap did not take: opening the checked path gives %q, %v", data, err)
			}

			if _, fail := r.stat(name, rel); fail == nil || fail.Code != codeOutside {
				t.Errorf("stat after the swap: %+v, want %s", fail, codeOutside)
			}
			f, fail := r.openText(name, rel, info, nil)
			if fail == nil {
				data, _ := io.ReadAll(f)
				f.Close()
				t.Fatalf("read after the swap: %q", data)
			}
			if fail.Code != codeOutside {
				t.Errorf("open after the swap: %+v, want %s", fail, codeOutside)
			}
			s := &search{root: r, match: func(line []byte) int { return strings.Index(string(line), "SECRET") }, limit: 10}
			if s.path(t.Context(), rel, name); len(s.res.Matches) != 0 {
				t.Errorf("search after the swap found %+v", s.res.Matches)
			}
		})
	}
}
