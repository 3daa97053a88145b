package gitrepo

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// Resolve resolves ref to a full commit hash. ref is a branch ("main",
// "feature/x", "origin/main"), a tag, a full or short (at least 4 digits)
// commit hash or HEAD, optionally followed by ~N and ^N steps ("main~2",
// "HEAD^"). In a clone a bare branch name is the remote's branch and HEAD is
// the remote's HEAD. An unknown ref wraps ErrNotFound.
func (r *Repo) Resolve(ctx context.Context, ref string) (string, error) {
	var hash string
	err := r.read(ctx, func() error {
		c, err := r.commit(ctx, ref)
		if err == nil {
			hash = c.Hash.String()
		}
		return err
	})
	return hash, err
}

// commit resolves rev to a commit; r.mu is held.
func (r *Repo) commit(ctx context.Context, rev string) (*object.Commit, error) {
	if err := checkRevision(rev, false); err != nil {
		return nil, r.errorf(err, "ref %q", rev)
	}
	base, suffix := rev, ""
	if i := strings.IndexAny(rev, "~^"); i >= 0 {
		base, suffix = rev[:i], rev[i:]
	}
	h, err := r.resolveName(base)
	if err != nil {
		return nil, r.errorf(err, "ref %q", rev)
	}
	c, err := r.peel(h)
	if err != nil {
		return nil, r.errorf(err, "ref %q", rev)
	}
	if c, err = walkSuffix(ctx, c, suffix); err != nil {
		return nil, r.errorf(err, "ref %q", rev)
	}
	return c, nil
}

// resolveName resolves a ref name or a (short) hash to an object hash.
func (r *Repo) resolveName(name string) (plumbing.Hash, error) {
	for _, c := range r.refCandidates(name) {
		if ref, err := storer.ResolveReference(r.git.Storer, c); err == nil {
			return ref.Hash(), nil
		}
	}
	if len(name) >= 4 && len(name) <= 40 && isHex(name) {
		return r.resolveHash(name)
	}
	if name == "HEAD" && r.cloned {
		return plumbing.ZeroHash, fmt.Errorf("the remote has no HEAD; set the repository's defaultRef: %w", ErrNotFound)
	}
	return plumbing.ZeroHash, ErrNotFound
}

// refCandidates lists the refs a name may mean, in order: in a clone a bare
// branch name is a remote-tracking branch.
func (r *Repo) refCandidates(name string) []plumbing.ReferenceName {
	branch := "refs/heads/"
	if r.cloned {
		branch = remotePrefix
	}
	switch {
	case name == "HEAD" && r.cloned:
		return []plumbing.ReferenceName{remoteHEAD}
	case name == "HEAD":
		return []plumbing.ReferenceName{plumbing.HEAD}
	case strings.HasPrefix(name, "refs/heads/"):
		return []plumbing.ReferenceName{plumbing.ReferenceName(branch + strings.TrimPrefix(name, "refs/heads/"))}
	case strings.HasPrefix(name, "refs/"):
		return []plumbing.ReferenceName{plumbing.ReferenceName(name)}
	}
	return []plumbing.ReferenceName{
		plumbing.ReferenceName(branch + name),
		plumbing.ReferenceName("refs/tags/" + name),
		plumbing.ReferenceName("refs/remotes/" + name),
		plumbing.ReferenceName("refs/remotes/" + name + "/HEAD"),
	}
}

// resolveHash finds the commit or tag a full or short hash names.
func (r *Repo) resolveHash(prefix string) (plumbing.Hash, error) {
	if len(prefix) == 40 {
		h := plumbing.NewHash(prefix)
		if err := r.git.Storer.HasEncodedObject(h); err != nil {
			return plumbing.ZeroHash, ErrNotFound
		}
		return h, nil
	}
	lister, ok := r.git.Storer.(interface {
		HashesWithPrefix([]byte) ([]plumbing.Hash, error)
	})
	if !ok {
		return plumbing.ZeroHash, ErrNotFound
	}
	even, _ := hex.DecodeString(prefix[:len(prefix)&^1])
	hashes, err := lister.HashesWithPrefix(even)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("looking up hash prefix: %w", err)
	}
	var found []plumbing.Hash
	for _, h := range hashes {
		if !strings.HasPrefix(h.String(), strings.ToLower(prefix)) {
			continue
		}
		if obj, err := r.git.Storer.EncodedObject(plumbing.AnyObject, h); err == nil &&
			(obj.Type() == plumbing.CommitObject || obj.Type() == plumbing.TagObject) {
			found = append(found, h)
		}
	}
	switch len(found) {
	case 0:
		return plumbing.ZeroHash, ErrNotFound
	case 1:
		return found[0], nil
	}
	return plumbing.ZeroHash, fmt.Errorf("short hash is ambiguous (%d commits); give more digits", len(found))
}

// peel follows annotated tags to the commit they name. A Path repository
// whose ref names an object go-git cannot find re-reads its pack index once:
// git gc or a fetch outside agentgw may have written new packs.
func (r *Repo) peel(h plumbing.Hash) (*object.Commit, error) {
	for range 16 {
		obj, err := r.git.Storer.EncodedObject(plumbing.AnyObject, h)
		if errors.Is(err, plumbing.ErrObjectNotFound) && !r.cloned {
			r.reindex()
			obj, err = r.git.Storer.EncodedObject(plumbing.AnyObject, h)
		}
		if err != nil {
			return nil, fmt.Errorf("object %s: %w", h, ErrNotFound)
		}
		switch obj.Type() {
		case plumbing.CommitObject:
			return object.DecodeCommit(r.git.Storer, obj)
		case plumbing.TagObject:
			tag, err := object.DecodeTag(r.git.Storer, obj)
			if err != nil {
				return nil, fmt.Errorf("reading tag %s: %w", h, err)
			}
			h = tag.Target
		default:
			return nil, fmt.Errorf("%s is a %s, not a commit", h, obj.Type())
		}
	}
	return nil, errors.New("too many nested tags")
}

// walkSuffix applies "~N" (N first parents up) and "^N" (the Nth parent)
// steps; "~" and "^" alone mean 1, "^0" the commit itself.
func walkSuffix(ctx context.Context, c *object.Commit, suffix string) (*object.Commit, error) {
	for suffix != "" {
		op := suffix[0]
		i := 1
		for i < len(suffix) && suffix[i] >= '0' && suffix[i] <= '9' {
			i++
		}
		n := 1
		if i > 1 {
			var err error
			if n, err = strconv.Atoi(suffix[1:i]); err != nil || n > 1_000_000 {
				return nil, fmt.Errorf("step %q too large", suffix[:i])
			}
		}
		suffix = suffix[i:]
		if op == '^' && n > 0 {
			if n > c.NumParents() {
				return nil, fmt.Errorf("commit %s has no parent %d: %w", c.Hash, n, ErrNotFound)
			}
			p, err := c.Parent(n - 1)
			if err != nil {
				return nil, fmt.Errorf("reading a parent of %s: %w", c.Hash, err)
			}
			c = p
			continue
		}
		for j := 0; op == '~' && j < n; j++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if c.NumParents() == 0 {
				return nil, fmt.Errorf("commit %s has no parent: %w", c.Hash, ErrNotFound)
			}
			p, err := c.Parent(0)
			if err != nil {
				return nil, fmt.Errorf("reading a parent of %s: %w", c.Hash, err)
			}
			c = p
		}
	}
	return c, nil
}

// checkRevision rejects what cannot be a ref name, hash or ~/^ suffix, and
// the empty string unless emptyOK.
func checkRevision(rev string, emptyOK bool) error {
	switch {
	case rev == "" && emptyOK:
		return nil
	case rev == "":
		return errors.New("empty ref")
	case len(rev) > 256:
		return errors.New("ref too long")
	case strings.HasPrefix(rev, "-"), strings.HasPrefix(rev, "/"), strings.HasPrefix(rev, "~"), strings.HasPrefix(rev, "^"):
		return errors.New("invalid ref")
	case strings.Contains(rev, ".."), strings.Contains(rev, "@{"), strings.Contains(rev, "//"):
		return errors.New("invalid ref")
	case strings.ContainsFunc(rev, func(c rune) bool { return c <= ' ' || c == 0x7f || strings.ContainsRune(`:?*[\`, c) }):
		return errors.New("invalid character in ref")
	}
	if i := strings.IndexAny(rev, "~^"); i >= 0 {
		if strings.Trim(rev[i:], "~^0123456789") != "" || len(rev)-i > 64 {
			return errors.New("invalid ~/^ suffix in ref")
		}
	}
	return nil
}

// isHex reports whether s holds only hexadecimal digits.
func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if !(s[i] >= '0' && s[i] <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
