package gitrepo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
)

func TestStatus(t *testing.T) {
	r, f := pathRepo(t)
	ctx := context.Background()
	got, err := r.Status(ctx)
	want := &WorktreeStatus{Branch: "main", Clean: true, Files: []FileStatus{}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("clean Status() = %+v, %v; want %+v", got, err, want)
	}
	if err := os.WriteFile(filepath.Join(f.dir, "README.md"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.dir, "new.txt"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.write("staged.txt", "staged\n")
	got, err = r.Status(ctx)
	want = &WorktreeStatus{Branch: "main", Files: []FileStatus{
		{Path: "README.md", Staging: "unmodified", Worktree: "modified"},
		{Path: "new.txt", Staging: "untracked", Worktree: "untracked"},
		{Path: "staged.txt", Staging: "added", Worktree: "unmodified"},
	}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Status() = %+v, %v; want %+v", got, err, want)
	}
}

func TestStatusWithoutWorktree(t *testing.T) {
	cloned, _ := clonedRepo(t)
	if _, err := cloned.Status(context.Background()); err == nil || !strings.Contains(err.Error(), "cloned repository has no working tree") {
		t.Errorf("cloned: err = %v", err)
	}
	bare := t.TempDir()
	if _, err := git.PlainInit(bare, true); err != nil {
		t.Fatal(err)
	}
	m, _, _ := newManager(t, time.Hour, RepoConfig{Name: "bare", Path: bare})
	r, err := m.Repo(context.Background(), "bare")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Status(context.Background()); err == nil || !strings.Contains(err.Error(), "bare repository has no working tree") {
		t.Errorf("bare: err = %v", err)
	}
}

func TestPathRepoSeesNewPacks(t *testing.T) {
	f := newFixture(t)
	m, clk, _ := newManager(t, time.Minute, RepoConfig{Name: "local", Path: f.dir})
	ctx := context.Background()
	r, err := m.Repo(ctx, "local")
	if err != nil {
		t.Fatal(err)
	}
	// A short hash makes go-git load the pack index, which it then keeps.
	if _, err := r.Resolve(ctx, "0000000"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Resolve(0000000): %v", err)
	}
	f.write("c4.txt", "c4\n")
	c4 := f.commit("c4", "outside agentgw")
	// What git gc does: pack everything, drop the loose objects.
	if err := f.repo.RepackObjects(&git.RepackConfig{}); err != nil {
		t.Fatal(err)
	}
	objects := filepath.Join(f.dir, ".git", "objects")
	dirs, err := os.ReadDir(objects)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if len(d.Name()) == 2 {
			if err := os.RemoveAll(filepath.Join(objects, d.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	if h := mustResolve(t, r, "main"); h != c4 {
		t.Errorf("main = %s; want c4 %s", h, c4)
	}
	if _, err := r.Show(ctx, "main", "c4.txt", 0); err != nil {
		t.Errorf("Show(c4.txt): %v", err)
	}
	clk.Advance(time.Minute)
	if got, err := m.Repo(ctx, "local"); err != nil || got != r {
		t.Errorf("Repo after the interval: %p, %v; want the same repository", got, err)
	}
	if _, err := r.Show(ctx, "v0.1", "old.txt", 0); err != nil {
		t.Errorf("Show(old.txt) after the refresh: %v", err)
	}
}
