// Package gitrepo gives agents read access to git repositories on the server:
// trees, files, logs, diffs and (for local working copies) status.
//
// Operators configure the repositories. A repository is either cloned from a
// remote URL into a cache directory (bare, all branches as
// refs/remotes/origin/*, plus tags) and fetched again when it is older than
// the fetch interval, or a local repository used in place. An IDE request's
// vcs context variable may select a repository by its remote URL, but only a
// URL that matches one of the repository's allow patterns: nothing is ever
// cloned or fetched from a URL an operator did not configure.
//
// Everything goes through go-git; the package never runs the git binary, not
// even for file:// remotes, which are served by go-git's in-process server.
package gitrepo

import (
	"errors"
	"fmt"
)

// ErrNotFound reports an unknown repository, ref or path. Errors returned by
// this package wrap it with the details.
var ErrNotFound = errors.New("not found")

// NotAllowedError reports a remote URL that no configured repository allows.
// RemoteURL is the normalised URL (see NormalizeURL), without any user info.
type NotAllowedError struct {
	RemoteURL string
}

// Error names the URL and says how to allow it.
func (e *NotAllowedError) Error() string {
	return fmt.Sprintf("git remote %q is not allowed: an operator must add it to a repository's allow list", e.RemoteURL)
}
