package gitrepo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/agentgw/agentgw/internal/testclock"
)

// epoch is the fixture's first commit time; every commit is an hour later,
// so that hashes are the same on every run.
var epoch = time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)

// fixture builds a repository on disk with go-git, to serve as a file://
// remote or a Path repository.
type fixture struct {
	t    *testing.T
	dir  string
	repo *git.Repository
	wt   *git.Worktree
	when time.Time
	// hashes by label: c1, c2, c3 on main; f1, f2 on feature.
	hashes map[string]string
}

// newRepoFixture is an empty working copy whose default branch is main.
func newRepoFixture(t *testing.T) *fixture {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "origin")
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")},
	})
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, dir: dir, repo: repo, wt: wt, when: epoch, hashes: map[string]string{}}
}

// newFixture is the standard history:
//
//	c1 initial (tag v0.1) -- c2 add util (annotated tag v1.0) -- c3 readme   main
//	                            \-- f1 feature work -- f2 tweak util          feature
//
// f1 modifies main.go, adds feature.txt, deletes old.txt and renames
// docs/guide/intro.md to docs/guide/start.md. main is checked out.
func newFixture(t *testing.T) *fixture {
	f := newRepoFixture(t)
	f.write("README.md", "# demo\n")
	f.write("main.go", "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n")
	f.write("docs/guide/intro.md", strings.Repeat("Read this guide slowly.\n", 20))
	f.write("logo.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01")
	f.write("old.txt", "obsolete\n")
	f.commit("c1", "initial\n\nThe first commit.")
	f.tag("v0.1", "c1", "")
	f.write("README.md", "# demo\n\nA demo.\n")
	f.write("pkg/util.go", "package pkg\n\nfunc Util() int { return 1 }\n")
	f.commit("c2", "add util")
	f.tag("v1.0", "c2", "release 1.0")
	f.checkout("feature", true)
	f.write("main.go", "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n")
	f.write("feature.txt", "new feature\n")
	f.remove("old.txt")
	f.move("docs/guide/intro.md", "docs/guide/start.md")
	f.commit("f1", "feature work")
	f.write("pkg/util.go", "package pkg\n\nfunc Util() int { return 2 }\n")
	f.commit("f2", "tweak util")
	f.checkout("main", false)
	f.write("README.md", "# demo\n\nA demo, improved.\n")
	f.commit("c3", "readme")
	return f
}

func (f *fixture) write(name, content string) {
	f.t.Helper()
	p := filepath.Join(f.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.wt.Add(name); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) remove(name string) {
	f.t.Helper()
	if _, err := f.wt.Remove(name); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) move(from, to string) {
	f.t.Helper()
	if _, err := f.wt.Move(from, to); err != nil {
		f.t.Fatal(err)
	}
}

// commit commits the index as label, an hour after the previous commit.
func (f *fixture) commit(label, msg string) string {
	f.t.Helper()
	f.when = f.when.Add(time.Hour)
	sig := &object.Signature{Name: "Ann Dev", Email: "ann@example.com", When: f.when}
	h, err := f.wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		f.t.Fatal(err)
	}
	f.hashes[label] = h.String()
	return h.String()
}

// tag tags a labelled commit; annotated when msg is set.
func (f *fixture) tag(name, label, msg string) {
	f.t.Helper()
	var opts *git.CreateTagOptions
	if msg != "" {
		opts = &git.CreateTagOptions{Message: msg, Tagger: &object.Signature{Name: "Ann Dev", Email: "ann@example.com", When: f.when}}
	}
	if _, err := f.repo.CreateTag(name, plumbing.NewHash(f.hashes[label]), opts); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) checkout(branch string, create bool) {
	f.t.Helper()
	err := f.wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName(branch), Create: create})
	if err != nil {
		f.t.Fatal(err)
	}
}

// url is the fixture as a file:// remote.
func (f *fixture) url() string { return "file://" + filepath.ToSlash(f.dir) }

// newManager builds a Manager over repos with a temporary cache and a fake
// clock.
func newManager(t *testing.T, interval time.Duration, repos ...RepoConfig) (*Manager, *testclock.Clock, string) {
	t.Helper()
	cache := filepath.Join(t.TempDir(), "cache")
	m, err := New(Config{CacheDir: cache, FetchInterval: interval, Repositories: repos}, func(string) string { return "" }, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := testclock.New(epoch)
	m.now = c.Now
	return m, c, cache
}

// clonedRepo clones the standard fixture through a Manager.
func clonedRepo(t *testing.T) (*Repo, *fixture) {
	t.Helper()
	_, r, f, _ := managedRepo(t, time.Hour)
	return r, f
}

// managedRepo clones the standard fixture as repository "app" of a Manager
// that fetches every interval of its fake clock.
func managedRepo(t *testing.T, interval time.Duration) (*Manager, *Repo, *fixture, *testclock.Clock) {
	t.Helper()
	f := newFixture(t)
	m, clk, _ := newManager(t, interval, RepoConfig{Name: "app", URL: f.url()})
	r, err := m.Repo(context.Background(), "app")
	if err != nil {
		t.Fatal(err)
	}
	return m, r, f, clk
}

// pathRepo opens the standard fixture in place.
func pathRepo(t *testing.T) (*Repo, *fixture) {
	t.Helper()
	f := newFixture(t)
	m, _, _ := newManager(t, time.Hour, RepoConfig{Name: "local", Path: f.dir})
	r, err := m.Repo(context.Background(), "local")
	if err != nil {
		t.Fatal(err)
	}
	return r, f
}

// bothRepos runs fn on the standard fixture cloned and in place.
func bothRepos(t *testing.T, fn func(t *testing.T, r *Repo, f *fixture)) {
	t.Run("cloned", func(t *testing.T) {
		r, f := clonedRepo(t)
		fn(t, r, f)
	})
	t.Run("path", func(t *testing.T) {
		r, f := pathRepo(t)
		fn(t, r, f)
	})
}
