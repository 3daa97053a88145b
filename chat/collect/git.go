package collect

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/agentgw/agentgw/contextvars"
)

// openRepository opens the git repository containing dir.
func openRepository(dir string) (*git.Repository, error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, fmt.Errorf("%s is not inside a git repository: %w", dir, err)
	}
	if err != nil {
		return nil, fmt.Errorf("opening the git repository at %s: %w", dir, err)
	}
	return repo, nil
}

// VCS describes the git repository containing dir: the current branch
// (the short commit hash when detached), its upstream ("origin/main", empty
// when it tracks none), the URL of its remote (else of "origin", else of the
// first remote) and the URLs of all remotes, sorted.
func VCS(dir string) (*contextvars.VCS, error) {
	repo, err := openRepository(dir)
	if err != nil {
		return nil, fmt.Errorf("collecting vcs: %w", err)
	}
	cfg, err := repo.Config()
	if err != nil {
		return nil, fmt.Errorf("collecting vcs: reading the repository config: %w", err)
	}
	head, err := repo.Reference(plumbing.HEAD, false)
	if err != nil {
		return nil, fmt.Errorf("collecting vcs: reading HEAD: %w", err)
	}
	v := &contextvars.VCS{Type: "git", Remotes: remoteURLs(cfg)}
	var branch *config.Branch
	if head.Type() == plumbing.SymbolicReference {
		v.BranchName = head.Target().Short()
		branch = cfg.Branches[v.BranchName]
	} else {
		v.BranchName = head.Hash().String()[:7]
	}
	if branch != nil && branch.Merge != "" {
		v.UpstreamBranchName = branch.Merge.Short()
		if branch.Remote != "" && branch.Remote != "." {
			v.UpstreamBranchName = branch.Remote + "/" + v.UpstreamBranchName
		}
	}
	v.RemoteURL = remoteURL(cfg, branch)
	return v, nil
}

// remoteURL picks the URL of the branch's remote, else origin's, else that of
// the first remote by name.
func remoteURL(cfg *config.Config, branch *config.Branch) string {
	names := []string{"origin"}
	if branch != nil && branch.Remote != "" {
		names = append([]string{branch.Remote}, names...)
	}
	var all []string
	for name := range cfg.Remotes {
		all = append(all, name)
	}
	sort.Strings(all)
	for _, name := range append(names, all...) {
		if r := cfg.Remotes[name]; r != nil && len(r.URLs) > 0 {
			return r.URLs[0]
		}
	}
	return ""
}

// remoteURLs lists every remote's URLs, sorted, without duplicates.
func remoteURLs(cfg *config.Config) []string {
	urls := []string{}
	for _, r := range cfg.Remotes {
		urls = append(urls, r.URLs...)
	}
	sort.Strings(urls)
	return slices.Compact(urls)
}

// UserInfo describes the user from user.name and user.email of the
// repository containing dir merged with the global git config (a global
// config that cannot be read is ignored; outside a repository, the global
// config alone): id is the email (else the name), name and nickname are
// user.name. Without a user.name, $USER is used.
func UserInfo(dir string) (*contextvars.UserInfo, error) {
	var name, email string
	if repo, err := openRepository(dir); err == nil {
		cfg, err := repo.ConfigScoped(config.GlobalScope)
		if err != nil {
			if cfg, err = repo.Config(); err != nil {
				return nil, fmt.Errorf("collecting userInfo: reading the repository config: %w", err)
			}
		}
		name, email = cfg.User.Name, cfg.User.Email
	} else if cfg, err := config.LoadConfig(config.GlobalScope); err == nil {
		name, email = cfg.User.Name, cfg.User.Email
	}
	if name == "" {
		name = os.Getenv("USER")
	}
	if name == "" && email == "" {
		return nil, errors.New("collecting userInfo: no user.name or user.email in the git config and no $USER")
	}
	id := email
	if id == "" {
		id = name
	}
	return &contextvars.UserInfo{ID: id, Name: name, Nickname: name}, nil
}
