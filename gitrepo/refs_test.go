package gitrepo

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/memory"
)

func TestUpdateRefs(t *testing.T) {
	h1 := plumbing.NewHash("1111111111111111111111111111111111111111")
	h2 := plumbing.NewHash("2222222222222222222222222222222222222222")
	remote := memory.ReferenceStorage{}
	for _, ref := range []*plumbing.Reference{
		plumbing.NewHashReference(plumbing.HEAD, h1), // an old server: HEAD without symref
		plumbing.NewHashReference("refs/heads/dev", h1),
		plumbing.NewHashReference("refs/heads/main", h1),
		plumbing.NewHashReference("refs/heads/x/y", h2),
		plumbing.NewHashReference("refs/tags/v1", h2),
		plumbing.NewHashReference("refs/heads/bad..name", h2),
		plumbing.NewHashReference("refs/pull/1/head", h2),
	} {
		remote[ref.Name()] = ref
	}
	st := memory.NewStorage()
	for _, ref := range []*plumbing.Reference{
		plumbing.NewHashReference("refs/remotes/origin/gone", h1),
		plumbing.NewHashReference("refs/tags/gone", h1),
		plumbing.NewHashReference("refs/heads/local", h1),
	} {
		if err := st.SetReference(ref); err != nil {
			t.Fatal(err)
		}
	}
	if err := updateRefs(st, remote); err != nil {
		t.Fatal(err)
	}
	var got []string
	iter, _ := st.IterReferences()
	_ = iter.ForEach(func(ref *plumbing.Reference) error {
		got = append(got, ref.String())
		return nil
	})
	sort.Strings(got)
	want := []string{
		"1111111111111111111111111111111111111111 refs/heads/local",
		"1111111111111111111111111111111111111111 refs/remotes/origin/dev",
		"1111111111111111111111111111111111111111 refs/remotes/origin/main",
		"2222222222222222222222222222222222222222 refs/remotes/origin/x/y",
		"2222222222222222222222222222222222222222 refs/tags/v1",
		"ref: refs/remotes/origin/main refs/remotes/origin/HEAD",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("refs =\n%q\nwant\n%q", got, want)
	}
}

// TestFetchAfterRewrite fetches from a remote whose history was rewritten
// and whose old commit is gone: the clone's own refs, sent as haves, name
// objects the remote lacks.
func TestFetchAfterRewrite(t *testing.T) {
	m, r, f, clk := managedRepo(t, time.Minute)
	ctx := context.Background()
	if err := f.wt.Reset(&git.ResetOptions{Commit: plumbing.NewHash(f.hashes["c2"]), Mode: git.HardReset}); err != nil {
		t.Fatal(err)
	}
	f.write("README.md", "# demo, rewritten\n")
	c3b := f.commit("c3b", "readme, rewritten")
	old := f.hashes["c3"]
	if err := os.Remove(filepath.Join(f.dir, ".git", "objects", old[:2], old[2:])); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute)
	if _, err := m.Repo(ctx, "app"); err != nil {
		t.Fatal(err)
	}
	if h := mustResolve(t, r, "main"); h != c3b {
		t.Errorf("main = %s; want the rewritten %s", h, c3b)
	}
}

// TestNoGitBinary clones and fetches a file:// remote with no git on PATH:
// go-git's own file transport would run git-upload-pack.
func TestNoGitBinary(t *testing.T) {
	f := newFixture(t)
	t.Setenv("PATH", t.TempDir())
	m, clk, _ := newManager(t, time.Minute, RepoConfig{Name: "app", URL: f.url()})
	r, err := m.Repo(context.Background(), "app")
	if err != nil {
		t.Fatal(err)
	}
	f.write("c4.txt", "c4\n")
	c4 := f.commit("c4", "c4")
	clk.Advance(time.Minute)
	if _, err := m.Repo(context.Background(), "app"); err != nil {
		t.Fatal(err)
	}
	if h := mustResolve(t, r, "main"); h != c4 {
		t.Errorf("main = %s; want %s", h, c4)
	}
}
