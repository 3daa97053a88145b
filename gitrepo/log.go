package gitrepo

import (
	"context"
	"errors"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

const (
	defaultLogLimit = 20
	maxLogLimit     = 500
)

// Commit describes one commit.
type Commit struct {
	Hash  string `json:"hash"`
	Short string `json:"short"`
	// Author and Email name the author; When is the author date.
	Author string    `json:"author"`
	Email  string    `json:"email"`
	When   time.Time `json:"when"`
	// Subject is the message's first line; Message the whole message.
	Subject string `json:"subject"`
	Message string `json:"message"`
}

// Log lists the commits reachable from ref, newest (by commit date) first;
// with a path (a file or a directory), only those that change it (a merge
// only when it differs from every parent there). limit <= 0 means 20, and at
// most 500 are listed.
func (r *Repo) Log(ctx context.Context, ref, path string, limit int) ([]Commit, error) {
	p, err := cleanPath(path)
	if err != nil {
		return nil, r.errorf(err, "log")
	}
	if limit <= 0 {
		limit = defaultLogLimit
	}
	limit = min(limit, maxLogLimit)
	commits := []Commit{}
	err = r.read(ctx, func() error {
		c, err := r.commit(ctx, ref)
		if err != nil {
			return err
		}
		iter, err := r.git.Log(&git.LogOptions{From: c.Hash, Order: git.LogOrderCommitterTime})
		if err != nil {
			return r.errorf(err, "log of %q", ref)
		}
		defer iter.Close()
		err = iter.ForEach(func(c *object.Commit) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if p != "" {
				if ok, err := touches(c, p); err != nil || !ok {
					return err
				}
			}
			commits = append(commits, toCommit(c))
			if len(commits) >= limit {
				return storer.ErrStop
			}
			return nil
		})
		if err != nil {
			return r.errorf(err, "log of %q", ref)
		}
		return nil
	})
	return commits, err
}

// touches reports whether c changes path p: its entry differs from that of
// every parent (for a root commit: exists).
func touches(c *object.Commit, p string) (bool, error) {
	h, err := entryHash(c, p)
	if err != nil {
		return false, err
	}
	if c.NumParents() == 0 {
		return !h.IsZero(), nil
	}
	differs := true
	err = c.Parents().ForEach(func(parent *object.Commit) error {
		ph, err := entryHash(parent, p)
		if err != nil {
			return err
		}
		if ph == h {
			differs = false
			return storer.ErrStop
		}
		return nil
	})
	return differs, err
}

// entryHash is the hash of p's entry in c's tree; zero when absent.
func entryHash(c *object.Commit, p string) (plumbing.Hash, error) {
	t, err := c.Tree()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	e, err := findEntry(t, p)
	if errors.Is(err, ErrNotFound) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return e.Hash, nil
}

// toCommit describes c.
func toCommit(c *object.Commit) Commit {
	h := c.Hash.String()
	msg := strings.TrimRight(c.Message, "\n")
	subject, _, _ := strings.Cut(strings.TrimLeft(msg, "\n"), "\n")
	return Commit{Hash: h, Short: h[:7], Author: c.Author.Name, Email: c.Author.Email, When: c.Author.When,
		Subject: strings.TrimSpace(subject), Message: msg}
}
