package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
)

// fetchSpec maps the remote's branches to remote-tracking refs in a clone.
const fetchSpec = "+refs/heads/*:refs/remotes/origin/*"

// sync brings e up to date: a Path repository re-reads its pack index, a
// remote is opened from the cache or cloned, then fetched. It returns the
// repository even when the fetch failed for a cancelled context.
func (m *Manager) sync(ctx context.Context, e *entry, r *Repo) (*Repo, error) {
	if e.ep == nil {
		r.refresh()
		return r, nil
	}
	if r == nil {
		return m.openOrClone(ctx, e)
	}
	return r, m.fetchRepo(ctx, e, r)
}

// openOrClone opens the clone left in the cache by an earlier run, fetching
// it unless fetches are off, and clones the remote when there is none.
func (m *Manager) openOrClone(ctx context.Context, e *entry) (*Repo, error) {
	g, err := git.PlainOpen(e.dir)
	if err == nil {
		r := newRepo(e.cfg.Name, g, true)
		if m.interval < 0 {
			return r, nil
		}
		return r, m.fetchRepo(ctx, e, r)
	}
	if !errors.Is(err, git.ErrRepositoryNotExists) {
		m.log.Warn("gitrepo: cannot open the cached clone; cloning again", "repository", e.cfg.Name, "dir", e.dir, "error", err)
	}
	if err := os.RemoveAll(e.dir); err != nil {
		return nil, fmt.Errorf("gitrepo: repository %q: removing the unusable clone: %w", e.cfg.Name, err)
	}
	return m.clone(ctx, e)
}

// clone clones the remote into a temporary directory of the cache and moves
// it into place once complete, so that an interrupted clone leaves nothing
// behind that a later run could mistake for a clone.
func (m *Manager) clone(ctx context.Context, e *entry) (*Repo, error) {
	m.clones.Add(1)
	start := time.Now()
	fail := func(what string, err error) (*Repo, error) {
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return nil, fmt.Errorf("gitrepo: repository %q: cloning %s: %s: %w", e.cfg.Name, e.norm, what, err)
	}
	if err := os.MkdirAll(m.cacheDir, 0o700); err != nil {
		return fail("creating the cache directory", err)
	}
	tmp, err := os.MkdirTemp(m.cacheDir, ".clone-"+e.cfg.Name+"-")
	if err != nil {
		return fail("creating a temporary directory", err)
	}
	defer os.RemoveAll(tmp)
	g, err := git.PlainInit(tmp, true)
	if err != nil {
		return fail("initialising", err)
	}
	remote := &config.RemoteConfig{Name: "origin", URLs: []string{e.cfg.URL}, Fetch: []config.RefSpec{fetchSpec}}
	if _, err := g.CreateRemote(remote); err != nil {
		return fail("configuring the remote", err)
	}
	if err := m.fetch(ctx, e, g.Storer, new(sync.Mutex)); err != nil {
		return fail("fetching", err)
	}
	if err := os.Rename(tmp, e.dir); err != nil {
		return fail("moving the clone into place", err)
	}
	if g, err = git.PlainOpen(e.dir); err != nil {
		return fail("opening", err)
	}
	m.log.Info("gitrepo: cloned", "repository", e.cfg.Name, "url", e.norm, "duration", time.Since(start))
	return newRepo(e.cfg.Name, g, true), nil
}

// fetchRepo fetches a clone. A failure other than a cancelled context is
// logged and the clone kept as it is: stale data beats none.
func (m *Manager) fetchRepo(ctx context.Context, e *entry, r *Repo) error {
	m.fetches.Add(1)
	start := time.Now()
	err := m.fetch(ctx, e, r.git.Storer, &r.mu)
	switch {
	case err == nil:
		m.log.Debug("gitrepo: fetched", "repository", e.cfg.Name, "url", e.norm, "duration", time.Since(start))
	case ctx.Err() != nil:
		return fmt.Errorf("gitrepo: repository %q: fetching %s: %w", e.cfg.Name, e.norm, ctx.Err())
	default:
		m.log.Warn("gitrepo: fetch failed; serving the last fetched state", "repository", e.cfg.Name, "url", e.norm, "error", err)
	}
	return nil
}
