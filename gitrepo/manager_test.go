package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/agentgw/agentgw/internal/testclock"
)

// cacheEntries lists the cache directory; none when it does not exist.
func cacheEntries(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func mustResolve(t *testing.T, r *Repo, ref string) string {
	t.Helper()
	h, err := r.Resolve(context.Background(), ref)
	if err != nil {
		t.Fatalf("Resolve(%q): %v", ref, err)
	}
	return h
}

func TestSelect(t *testing.T) {
	f := newFixture(t)
	other := newFixture(t)
	m, _, _ := newManager(t, time.Hour,
		RepoConfig{Name: "app", URL: f.url(), Allow: []string{"github.com/acme/*"}, DefaultRef: "main"},
		RepoConfig{Name: "wide", Path: other.dir, Allow: []string{"github.com/**"}},
		RepoConfig{Name: "own", URL: f.url()},
	)
	ctx := context.Background()
	tests := []struct {
		name                 string
		sel                  Selection
		repo, ref, up, deflt string
	}{
		{"by name", Selection{Name: "app"}, "app", "main", "main", "main"},
		{"by url", Selection{RemoteURL: "git@github.com:acme/app.git", Branch: "feature", Upstream: "upstream/main"},
			"app", "feature", "origin/main", "main"},
		{"first match wins", Selection{RemoteURL: "https://github.com/acme/web"}, "app", "main", "main", "main"},
		{"path repo keeps the remote name", Selection{RemoteURL: "https://github.com/other/x", Upstream: "upstream/main"},
			"wide", "HEAD", "upstream/main", "HEAD"},
		{"default allow", Selection{RemoteURL: f.url() + ".git/", Branch: "v1.0"}, "own", "v1.0", "HEAD", "HEAD"},
		{"name and allowed url", Selection{Name: "own", RemoteURL: f.dir}, "own", "HEAD", "HEAD", "HEAD"},
	}
	for _, tt := range tests {
		got, err := m.Select(ctx, tt.sel)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got.Repo.Name() != tt.repo || got.Ref != tt.ref || got.UpstreamRef != tt.up || got.DefaultRef != tt.deflt {
			t.Errorf("%s: got %s %+v; want %s ref %q upstream %q default %q", tt.name, got.Repo.Name(), *got, tt.repo, tt.ref, tt.up, tt.deflt)
		}
	}
	got, err := m.Select(ctx, Selection{RemoteURL: "git@github.com:acme/app.git", Branch: "feature", Upstream: "upstream/main"})
	if err != nil {
		t.Fatal(err)
	}
	if h := mustResolve(t, got.Repo, got.Ref); h != f.hashes["f2"] {
		t.Errorf("the selected branch resolves to %s; want f2 %s", h, f.hashes["f2"])
	}
	if h := mustResolve(t, got.Repo, got.UpstreamRef); h != f.hashes["c3"] {
		t.Errorf("the selected upstream resolves to %s; want c3 %s", h, f.hashes["c3"])
	}
}

func TestSelectErrors(t *testing.T) {
	f := newFixture(t)
	m, _, cache := newManager(t, time.Hour,
		RepoConfig{Name: "app", URL: f.url(), Allow: []string{"github.com/acme/*"}},
		RepoConfig{Name: "local", Path: f.dir},
	)
	ctx := context.Background()
	var na *NotAllowedError
	_, err := m.Select(ctx, Selection{RemoteURL: "https://user:secret@Evil.example/x.git", Branch: "main"})
	if !errors.As(err, &na) || na.RemoteURL != "evil.example/x" {
		t.Fatalf("not allowed: err = %v; want NotAllowedError for evil.example/x", err)
	}
	want := `git remote "evil.example/x" is not allowed: an operator must add it to a repository's allow list`
	if err.Error() != want {
		t.Errorf("message = %q; want %q", err, want)
	}
	if _, err := m.Select(ctx, Selection{Name: "app", RemoteURL: "github.com/other/app"}); !errors.As(err, &na) {
		t.Errorf("name with a URL it does not allow: err = %v; want NotAllowedError", err)
	}
	if _, err := m.Select(ctx, Selection{Name: "local", RemoteURL: "github.com/acme/app"}); !errors.As(err, &na) {
		t.Errorf("path repository without allow list, with a URL: err = %v; want NotAllowedError", err)
	}
	if _, err := m.Select(ctx, Selection{Name: "nope"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown name: err = %v; want ErrNotFound", err)
	}
	if _, err := m.Select(ctx, Selection{Branch: "main"}); err == nil || !strings.Contains(err.Error(), "no repository selected") {
		t.Errorf("no name, no URL: err = %v", err)
	}
	_, err = m.Select(ctx, Selection{RemoteURL: "https://user:secret@ho st/x"})
	if err == nil || errors.As(err, &na) || strings.Contains(err.Error(), "secret") {
		t.Errorf("malformed URL: err = %v; want a plain error without the credentials", err)
	}
	if got := cacheEntries(t, cache); len(got) != 0 {
		t.Errorf("the cache holds %v after only refused selections; want nothing", got)
	}
	if n := m.clones.Load() + m.fetches.Load(); n != 0 {
		t.Errorf("%d clones and fetches; want none", n)
	}
}

func TestRepoClonesOnceForConcurrentCallers(t *testing.T) {
	f := newFixture(t)
	m, _, cache := newManager(t, time.Hour, RepoConfig{Name: "app", URL: f.url()})
	const callers = 16
	repos := make([]*Repo, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := m.Repo(context.Background(), "app")
			if err != nil {
				t.Error(err)
			}
			repos[i] = r
		}()
	}
	wg.Wait()
	for _, r := range repos {
		if r == nil || r != repos[0] {
			t.Fatalf("callers got different repositories: %p and %p", r, repos[0])
		}
	}
	if c, fe := m.clones.Load(), m.fetches.Load(); c != 1 || fe != 0 {
		t.Errorf("clones = %d, fetches = %d; want 1 and 0", c, fe)
	}
	names := cacheEntries(t, cache)
	if len(names) != 1 || !strings.HasPrefix(names[0], "app-") || !strings.HasSuffix(names[0], ".git") {
		t.Errorf("cache holds %v; want one app-*.git clone", names)
	}
	if h := mustResolve(t, repos[0], "main"); h != f.hashes["c3"] {
		t.Errorf("main = %s; want %s", h, f.hashes["c3"])
	}
}

func TestRepoFetchesAfterInterval(t *testing.T) {
	m, r, f, clk := managedRepo(t, time.Minute)
	ctx := context.Background()
	f.write("c4.txt", "c4\n")
	c4 := f.commit("c4", "after the clone")
	f.tag("v2", "c4", "")
	if err := f.repo.Storer.RemoveReference(plumbing.NewBranchReferenceName("feature")); err != nil {
		t.Fatal(err)
	}

	clk.Advance(59 * time.Second)
	if got, _ := m.Repo(ctx, "app"); got != r || m.fetches.Load() != 0 {
		t.Fatalf("before the interval: fetches = %d (repo %p, first %p); want 0, same repo", m.fetches.Load(), got, r)
	}
	if h := mustResolve(t, r, "main"); h != f.hashes["c3"] {
		t.Errorf("before the interval main = %s; want the old c3", h)
	}

	clk.Advance(time.Second)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got, err := m.Repo(ctx, "app"); err != nil || got != r {
				t.Errorf("after the interval: %p, %v; want the same repo", got, err)
			}
		}()
	}
	wg.Wait()
	if n := m.fetches.Load(); n != 1 {
		t.Errorf("fetches = %d; want 1", n)
	}
	if h := mustResolve(t, r, "main"); h != c4 {
		t.Errorf("after the fetch main = %s; want c4 %s", h, c4)
	}
	if h := mustResolve(t, r, "v2"); h != c4 {
		t.Errorf("new tag v2 = %s; want %s", h, c4)
	}
	if _, err := r.Resolve(ctx, "feature"); !errors.Is(err, ErrNotFound) {
		t.Errorf("the deleted branch: err = %v; want ErrNotFound (pruned)", err)
	}
}

func TestRepoNegativeIntervalNeverFetches(t *testing.T) {
	f := newFixture(t)
	m, clk, _ := newManager(t, -1, RepoConfig{Name: "app", URL: f.url()})
	r, err := m.Repo(context.Background(), "app")
	if err != nil {
		t.Fatal(err)
	}
	f.write("c4.txt", "c4\n")
	f.commit("c4", "after the clone")
	clk.Advance(24 * 365 * time.Hour)
	if _, err := m.Repo(context.Background(), "app"); err != nil {
		t.Fatal(err)
	}
	if n := m.fetches.Load(); n != 0 {
		t.Errorf("fetches = %d; want 0", n)
	}
	if h := mustResolve(t, r, "main"); h != f.hashes["c3"] {
		t.Errorf("main = %s; want the cloned c3", h)
	}
}

func TestRepoReusesCachedClone(t *testing.T) {
	f := newFixture(t)
	cache := filepath.Join(t.TempDir(), "cache")
	cfg := Config{CacheDir: cache, FetchInterval: -1, Repositories: []RepoConfig{{Name: "app", URL: f.url()}}}
	ctx := context.Background()
	for i, interval := range []time.Duration{-1, -1, time.Minute} {
		cfg.FetchInterval = interval
		m, err := New(cfg, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err := m.Repo(ctx, "app")
		if err != nil {
			t.Fatal(err)
		}
		wantClones, wantFetches := int64(0), int64(0)
		if i == 0 {
			wantClones = 1
		}
		if interval > 0 {
			wantFetches = 1
		}
		if m.clones.Load() != wantClones || m.fetches.Load() != wantFetches {
			t.Errorf("manager %d: clones %d, fetches %d; want %d, %d", i, m.clones.Load(), m.fetches.Load(), wantClones, wantFetches)
		}
		if h := mustResolve(t, r, "feature"); h != f.hashes["f2"] {
			t.Errorf("manager %d: feature = %s; want %s", i, h, f.hashes["f2"])
		}
	}
}

func TestRepoCancelledClone(t *testing.T) {
	f := newFixture(t)
	m, _, cache := newManager(t, time.Hour, RepoConfig{Name: "app", URL: f.url()})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Repo(ctx, "app"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
	if got := cacheEntries(t, cache); len(got) != 0 {
		t.Errorf("a cancelled clone left %v in the cache", got)
	}
	if _, err := m.Repo(context.Background(), "app"); err != nil {
		t.Errorf("a later call: %v; want a clone", err)
	}
}

func TestRepoErrors(t *testing.T) {
	m, _, cache := newManager(t, time.Hour, RepoConfig{Name: "gone", URL: "file://" + filepath.Join(t.TempDir(), "missing")})
	if _, err := m.Repo(context.Background(), "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown repository: err = %v; want ErrNotFound", err)
	}
	_, err := m.Repo(context.Background(), "gone")
	if err == nil || !strings.Contains(err.Error(), `repository "gone": cloning`) {
		t.Errorf("missing remote: err = %v; want a clone error naming the repository", err)
	}
	if got := cacheEntries(t, cache); len(got) != 0 {
		t.Errorf("a failed clone left %v in the cache", got)
	}
}

func TestRepoFetchFailureServesStale(t *testing.T) {
	f := newFixture(t)
	var logs bytes.Buffer
	m, err := New(Config{CacheDir: t.TempDir(), FetchInterval: time.Minute, Repositories: []RepoConfig{{Name: "app", URL: f.url()}}},
		nil, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	clk := testclock.New(epoch)
	m.now = clk.Now
	r, err := m.Repo(context.Background(), "app")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(f.dir); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	got, err := m.Repo(context.Background(), "app")
	if err != nil || got != r {
		t.Fatalf("after a failed fetch: %p, %v; want the same repo, no error", got, err)
	}
	if !strings.Contains(logs.String(), "fetch failed; serving the last fetched state") {
		t.Errorf("logs lack the fetch failure:\n%s", logs.String())
	}
	if h := mustResolve(t, r, "main"); h != f.hashes["c3"] {
		t.Errorf("main = %s; want %s", h, f.hashes["c3"])
	}
	if _, err := m.Repo(context.Background(), "app"); err != nil || m.fetches.Load() != 1 {
		t.Errorf("right after a failed fetch: fetches = %d, %v; want no new attempt", m.fetches.Load(), err)
	}
}

func TestReadsDuringFetch(t *testing.T) {
	m, r, f, clk := managedRepo(t, time.Minute)
	ctx := context.Background()
	f.write("later.txt", "later\n")
	f.commit("c4", "later")
	clk.Advance(time.Hour)
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == 0 {
				if _, err := m.Repo(ctx, "app"); err != nil {
					t.Error(err)
				}
				return
			}
			if _, err := r.Show(ctx, "feature", "main.go", 0); err != nil {
				t.Error(err)
			}
			if _, err := r.Tree(ctx, "main", ""); err != nil {
				t.Error(err)
			}
			if _, err := r.Log(ctx, "feature", "pkg", 0); err != nil {
				t.Error(err)
			}
			if _, err := r.Diff(ctx, "main", "feature", DiffOptions{MergeBase: true}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if h := mustResolve(t, r, "main"); h != f.hashes["c4"] {
		t.Errorf("main = %s; want c4", h)
	}
}
