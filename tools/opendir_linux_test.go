package tools

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestStartDirHoldsTheDirectory is the narrowest window of the workdir
// race: the directory is swapped for a symlink out of the root after the
// call opened it and before the child changes into it. The child is given
// the open directory (/proc/self/fd/N), so it runs in the directory that
// was opened, under the name it has now, never in the symlink's target.
func TestStartDirHoldsTheDirectory(t *testing.T) {
	t.Parallel()
	root, outside := swapRoots(t)
	wd := filepath.Join(root, "wd")
	ps := procSpec{dir: wd, workdir: &confined{root: root, name: "wd", path: wd}}
	dir, f, err := ps.startDir()
	if err != nil {
		t.Fatal(err)
	}
	defer closeFiles(f)
	if f == nil || !strings.HasPrefix(dir, "/proc/self/fd/") {
		t.Fatalf("startDir gave %q (file %v), not the open directory", dir, f)
	}
	swapDir(t, wd, func(p string) error { return os.Symlink(outside, p) })
	cmd := exec.Command(nativeTool(t), "pwd")
	cmd.Dir, cmd.Env = dir, []string{} // as runProcess: no PWD for os.Getwd to trust
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if got, want := strings.TrimSpace(string(out)), wd+".orig"; got != want {
		t.Errorf("the child ran in %s, want %s (the directory opened, renamed since)", got, want)
	}
}
