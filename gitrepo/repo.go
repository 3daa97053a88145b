package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"

	git "github.com/go-git/go-git/v5"
)

// Repo is one repository, cloned or local. Its methods are safe for
// concurrent use and honour ctx where go-git lets them.
type Repo struct {
	name   string
	cloned bool // a clone in the cache, whose branches are refs/remotes/origin/*
	// mu guards git's storer. Reads take it too, not only a fetch's writes:
	// go-git's filesystem storer fills its pack index and caches lazily on
	// reads, so even two concurrent reads race (the race detector shows it).
	mu  sync.Mutex
	git *git.Repository
	// patchBudget caps all patches of one Diff together.
	patchBudget int
}

// newRepo wraps an opened repository.
func newRepo(name string, g *git.Repository, cloned bool) *Repo {
	return &Repo{name: name, cloned: cloned, git: g, patchBudget: maxTotalPatchBytes}
}

// Name is the repository's configured name.
func (r *Repo) Name() string { return r.name }

// read runs fn holding r.mu, after checking ctx.
func (r *Repo) read(ctx context.Context, fn func() error) error {
	if err := ctx.Err(); err != nil {
		return r.errorf(err, "reading")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return fn()
}

// refresh makes a Path repository see packs written since it was opened (by
// git gc or a fetch outside agentgw).
func (r *Repo) refresh() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reindex()
}

// reindex drops go-git's cached pack index; r.mu is held.
func (r *Repo) reindex() {
	if s, ok := r.git.Storer.(interface{ Reindex() }); ok {
		s.Reindex()
	}
}

// errorf wraps err with the repository's name and what was being done.
func (r *Repo) errorf(err error, format string, args ...any) error {
	return fmt.Errorf("gitrepo: repository %q: %s: %w", r.name, fmt.Sprintf(format, args...), err)
}

// cleanPath cleans a repository path: "" and "." are the root (""); an
// absolute path, one escaping the root or holding control characters is
// an error.
func cleanPath(p string) (string, error) {
	if strings.ContainsFunc(p, func(c rune) bool { return c < 0x20 || c == 0x7f }) {
		return "", errors.New("path contains control characters")
	}
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) {
		return "", fmt.Errorf("path %q is absolute; give it relative to the repository root", p)
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("path %q leaves the repository", p)
	}
	if c == "." {
		return "", nil
	}
	return c, nil
}
