package gitrepo

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// defaultFetchInterval is the fetch interval when Config leaves it 0.
const defaultFetchInterval = 30 * time.Second

// Config configures the repositories agents may read.
type Config struct {
	// CacheDir is where clones live; "" means os.UserCacheDir()/agentgw/git,
	// else os.TempDir()/agentgw/git.
	CacheDir string `json:"cacheDir,omitempty" yaml:"cacheDir,omitempty"`
	// FetchInterval is the least time between two fetches of a repository:
	// 0 means 30s, a negative value never fetches after the clone.
	FetchInterval time.Duration `json:"fetchInterval,omitempty" yaml:"fetchInterval,omitempty"`
	// Repositories are the repositories, in the order Select tries them.
	Repositories []RepoConfig `json:"repositories,omitempty" yaml:"repositories,omitempty"`
}

// RepoConfig configures one repository: a remote to clone (URL) or a local
// repository used in place (Path).
type RepoConfig struct {
	// Name identifies the repository: required, unique, [A-Za-z0-9._-]+.
	Name string `json:"name" yaml:"name"`
	// URL is the remote to clone: https://, http://, ssh://, scp-like
	// (git@host:org/repo.git) or file://.
	URL string `json:"url,omitempty" yaml:"url,omitempty"`
	// Path is a local repository (a working copy or a bare repository) read in
	// place: never cloned nor fetched. Status works only for these.
	Path string `json:"path,omitempty" yaml:"path,omitempty"`
	// Allow lists the remote URLs a request's vcs.remoteUrl may name to select
	// this repository: globs over normalised URLs (see NormalizeURL), matched
	// segment by segment with path.Match, "**" matching any number of
	// segments; written as normalised URLs or as URLs. Default: the
	// repository's own URL, when URL is set.
	Allow []string `json:"allow,omitempty" yaml:"allow,omitempty"`
	// DefaultRef is the ref used when a request names none; "" is the
	// remote's HEAD (HEAD for a Path repository).
	DefaultRef string `json:"defaultRef,omitempty" yaml:"defaultRef,omitempty"`
	// Auth names the environment variables holding the remote's credentials.
	Auth *Auth `json:"auth,omitempty" yaml:"auth,omitempty"`
}

var validName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// defaultCacheDir is the cache directory when Config names none.
func defaultCacheDir() string {
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "agentgw", "git")
	}
	return filepath.Join(os.TempDir(), "agentgw", "git")
}

// newEntry checks one repository's configuration and prepares its state;
// a Path repository is opened at once.
func newEntry(rc RepoConfig, cacheDir string) (*entry, error) {
	if !validName.MatchString(rc.Name) {
		return nil, errors.New("name must be non-empty and use only letters, digits, '.', '_' and '-'")
	}
	if (rc.URL == "") == (rc.Path == "") {
		return nil, errors.New("set exactly one of url and path")
	}
	if err := checkRevision(rc.DefaultRef, true); err != nil {
		return nil, fmt.Errorf("defaultRef: %w", err)
	}
	e := &entry{cfg: rc}
	for _, raw := range rc.Allow {
		p, err := compilePattern(raw)
		if err != nil {
			return nil, err
		}
		e.allow = append(e.allow, p)
	}
	if rc.Path != "" {
		if rc.Auth != nil {
			return nil, errors.New("auth is only for url repositories")
		}
		r, err := openPath(rc.Name, rc.Path)
		e.repo = r
		return e, err
	}
	return e, e.initRemote(cacheDir)
}

// initRemote checks the URL and its auth, sets the default allow pattern and
// the clone's directory.
func (e *entry) initRemote(cacheDir string) error {
	norm, err := NormalizeURL(e.cfg.URL)
	if err != nil {
		return fmt.Errorf("url: %w", err)
	}
	ep, err := transport.NewEndpoint(e.cfg.URL)
	if err != nil {
		return fmt.Errorf("url %s: cannot be parsed", norm)
	}
	if _, err := transportFor(ep); err != nil {
		return fmt.Errorf("url %s: %w", norm, err)
	}
	if err := checkAuth(e.cfg.Auth, ep); err != nil {
		return err
	}
	if len(e.allow) == 0 {
		e.allow = []pattern{literalPattern(norm)}
	}
	e.norm, e.ep = norm, ep
	sum := sha256.Sum256([]byte(e.cfg.URL))
	e.dir = filepath.Join(cacheDir, fmt.Sprintf("%s-%x.git", e.cfg.Name, sum[:6]))
	return nil
}

// openPath opens a local repository (its root or its git directory).
func openPath(name, dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("path %s: %w", dir, err)
	}
	g, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("path %s is not a git repository: %w", abs, err)
	}
	return newRepo(name, g, false), nil
}
