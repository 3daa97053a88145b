package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/agentgw/agentgw/observe"
)

// Manager owns the configured repositories: it selects them for requests,
// clones them on first use and fetches them when they are stale.
type Manager struct {
	cacheDir string
	interval time.Duration
	getenv   func(string) string
	log      *slog.Logger
	now      func() time.Time
	entries  []*entry
	byName   map[string]*entry

	clones, fetches atomic.Int64 // counted for tests and debugging
}

// entry is one configured repository and its clone's state.
type entry struct {
	cfg   RepoConfig
	norm  string              // the normalised URL; "" for a Path repository
	ep    *transport.Endpoint // nil for a Path repository
	allow []pattern
	dir   string // the clone's directory

	mu     sync.Mutex // guards the fields below
	repo   *Repo      // nil until cloned (or opened from the cache)
	synced time.Time  // start of the last clone, fetch or refresh
	call   *call      // the clone or fetch under way, if any
}

// call is a clone or fetch that concurrent callers wait for.
type call struct {
	done chan struct{}
	repo *Repo
	err  error
}

// New checks the configuration and builds a Manager. It opens Path
// repositories at once but clones nothing: remotes are cloned on first use.
// getenv reads the credentials named by Auth (nil means os.Getenv); log may
// be nil.
func New(cfg Config, getenv func(string) string, log *slog.Logger) (*Manager, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := &Manager{cacheDir: cfg.CacheDir, interval: cfg.FetchInterval, getenv: getenv, log: log,
		now: time.Now, byName: map[string]*entry{}}
	if m.cacheDir == "" {
		m.cacheDir = defaultCacheDir()
	}
	if m.interval == 0 {
		m.interval = defaultFetchInterval
	}
	for i, rc := range cfg.Repositories {
		e, err := newEntry(rc, m.cacheDir)
		if err != nil {
			return nil, fmt.Errorf("gitrepo: repository %d (%q): %w", i+1, rc.Name, err)
		}
		if m.byName[rc.Name] != nil {
			return nil, fmt.Errorf("gitrepo: repository %d (%q): the name is used twice", i+1, rc.Name)
		}
		m.entries = append(m.entries, e)
		m.byName[rc.Name] = e
	}
	return m, nil
}

// Names lists the repositories in configuration order.
func (m *Manager) Names() []string {
	names := make([]string, len(m.entries))
	for i, e := range m.entries {
		names[i] = e.cfg.Name
	}
	return names
}

// Repo returns the named repository, cloning it on first use and fetching it
// when its last fetch is older than the fetch interval. Concurrent callers
// share one clone or fetch; ctx cancels the wait, and the clone or fetch of
// the caller that started it. A failed fetch is logged and the repository
// served as it is.
func (m *Manager) Repo(ctx context.Context, name string) (*Repo, error) {
	e := m.byName[name]
	if e == nil {
		return nil, fmt.Errorf("gitrepo: repository %q: %w", name, ErrNotFound)
	}
	for {
		e.mu.Lock()
		if e.repo != nil && !m.due(e) {
			r := e.repo
			e.mu.Unlock()
			return r, nil
		}
		c := e.call
		if c == nil {
			c = &call{done: make(chan struct{})}
			e.call = c
			e.mu.Unlock()
			m.run(ctx, e, c)
		} else {
			e.mu.Unlock()
		}
		select {
		case <-c.done:
		case <-ctx.Done():
			return nil, fmt.Errorf("gitrepo: repository %q: %w", name, ctx.Err())
		}
		if c.err == nil {
			return c.repo, nil
		}
		if !isContextErr(c.err) || ctx.Err() != nil {
			return nil, c.err
		}
		// The caller that started the call went away; start another one.
	}
}

// due reports whether e needs a clone, a fetch or (Path) a refresh; e.mu is held.
func (m *Manager) due(e *entry) bool {
	if e.repo == nil {
		return true
	}
	return m.interval >= 0 && !m.now().Before(e.synced.Add(m.interval))
}

// run performs the call c for e and publishes its outcome.
func (m *Manager) run(ctx context.Context, e *entry, c *call) {
	start := m.now()
	e.mu.Lock()
	r := e.repo
	e.mu.Unlock()
	octx, observed := observe.From(ctx).Git(ctx, "sync", e.cfg.Name)
	r, err := m.sync(octx, e, r)
	observed(err)
	e.mu.Lock()
	defer e.mu.Unlock()
	if r != nil {
		e.repo = r
	}
	if err == nil {
		e.synced = start
	}
	c.repo, c.err = r, err
	e.call = nil
	close(c.done)
}

// isContextErr reports a cancelled or timed-out context.
func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
