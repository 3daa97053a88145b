package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Selection picks a repository and refs: by Name, or by a request's vcs
// context variable (remoteUrl, branchName, upstreamBranchName).
type Selection struct {
	Name      string `json:"name,omitempty"`
	RemoteURL string `json:"remoteUrl,omitempty"`
	Branch    string `json:"branch,omitempty"`
	Upstream  string `json:"upstream,omitempty"`
}

// Target is a selected repository and the refs to read.
type Target struct {
	Repo *Repo `json:"-"`
	// Name is the repository's name.
	Name string `json:"name"`
	// Ref is the selection's Branch, else the repository's DefaultRef, else HEAD.
	Ref string `json:"ref"`
	// UpstreamRef is the selection's Upstream, else DefaultRef, else HEAD.
	// For a cloned repository the upstream's remote name (the IDE's, say
	// "upstream/main") is replaced by origin ("origin/main").
	UpstreamRef string `json:"upstreamRef"`
	// DefaultRef is the repository's DefaultRef, else HEAD: what a branch is
	// usually compared with.
	DefaultRef string `json:"defaultRef"`
}

// Select finds the repository for sel and returns it (cloned or fetched as
// Repo does) with the refs to read. With a Name, that repository, and a
// RemoteURL given too must be one it allows. Without, the first repository
// (in configuration order) whose allow patterns match the normalised
// RemoteURL. A URL no repository allows gives a *NotAllowedError, and
// nothing is cloned or fetched.
func (m *Manager) Select(ctx context.Context, sel Selection) (*Target, error) {
	e, err := m.pick(sel)
	if err != nil {
		return nil, err
	}
	r, err := m.Repo(ctx, e.cfg.Name)
	if err != nil {
		return nil, err
	}
	def := e.cfg.DefaultRef
	if def == "" {
		def = "HEAD"
	}
	t := &Target{Repo: r, Name: r.Name(), Ref: sel.Branch, UpstreamRef: sel.Upstream, DefaultRef: def}
	if t.Ref == "" {
		t.Ref = def
	}
	if t.UpstreamRef == "" {
		t.UpstreamRef = def
	} else if _, branch, ok := strings.Cut(t.UpstreamRef, "/"); ok && e.ep != nil && branch != "" {
		t.UpstreamRef = "origin/" + branch
	}
	return t, nil
}

// pick finds the entry sel names or whose allow list matches its RemoteURL.
func (m *Manager) pick(sel Selection) (*entry, error) {
	var norm string
	if sel.RemoteURL != "" {
		n, err := NormalizeURL(sel.RemoteURL)
		if err != nil {
			return nil, fmt.Errorf("gitrepo: the vcs remote URL: %w", err)
		}
		norm = n
	}
	if sel.Name != "" {
		e := m.byName[sel.Name]
		if e == nil {
			return nil, fmt.Errorf("gitrepo: repository %q: %w", sel.Name, ErrNotFound)
		}
		if norm != "" && !e.allows(norm) {
			return nil, &NotAllowedError{RemoteURL: norm}
		}
		return e, nil
	}
	if norm == "" {
		return nil, errors.New("gitrepo: no repository selected: give a repository name or a vcs remote URL")
	}
	for _, e := range m.entries {
		if e.allows(norm) {
			return e, nil
		}
	}
	return nil, &NotAllowedError{RemoteURL: norm}
}

// allows reports whether a pattern of e matches the normalised URL n.
func (e *entry) allows(n string) bool {
	for _, p := range e.allow {
		if p.match(n) {
			return true
		}
	}
	return false
}
