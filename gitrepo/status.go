package gitrepo

import (
	"context"
	"errors"
	"sort"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// WorktreeStatus is the state of a local working copy.
type WorktreeStatus struct {
	// Branch is the checked-out branch, or the short commit hash when HEAD
	// is detached.
	Branch string `json:"branch"`
	// Clean reports no changed and no untracked files.
	Clean bool         `json:"clean"`
	Files []FileStatus `json:"files"`
}

// FileStatus is one changed or untracked file. Staging (index against HEAD)
// and Worktree (working copy against index) are each "unmodified",
// "untracked", "modified", "added", "deleted", "renamed", "copied" or
// "updated-unmerged".
type FileStatus struct {
	Path     string `json:"path"`
	Staging  string `json:"staging"`
	Worktree string `json:"worktree"`
}

// statusNames names go-git's status codes.
var statusNames = map[git.StatusCode]string{
	git.Unmodified: "unmodified", git.Untracked: "untracked", git.Modified: "modified",
	git.Added: "added", git.Deleted: "deleted", git.Renamed: "renamed", git.Copied: "copied",
	git.UpdatedButUnmerged: "updated-unmerged",
}

// Status reports the working copy's changed and untracked files, sorted by
// path. Only a Path repository with a working tree has one; a clone or a
// bare repository is an error.
func (r *Repo) Status(ctx context.Context) (*WorktreeStatus, error) {
	if r.cloned {
		return nil, r.errorf(errors.New("a cloned repository has no working tree; status needs a path repository"), "status")
	}
	var ws *WorktreeStatus
	err := r.read(ctx, func() error {
		wt, err := r.git.Worktree()
		if errors.Is(err, git.ErrIsBareRepository) {
			return r.errorf(errors.New("a bare repository has no working tree"), "status")
		}
		if err != nil {
			return r.errorf(err, "status")
		}
		st, err := wt.Status()
		if err != nil {
			return r.errorf(err, "status")
		}
		ws = &WorktreeStatus{Clean: st.IsClean(), Files: []FileStatus{}}
		for p, fs := range st {
			if fs.Staging == git.Unmodified && fs.Worktree == git.Unmodified {
				continue
			}
			ws.Files = append(ws.Files, FileStatus{Path: p, Staging: statusName(fs.Staging), Worktree: statusName(fs.Worktree)})
		}
		sort.Slice(ws.Files, func(i, j int) bool { return ws.Files[i].Path < ws.Files[j].Path })
		ws.Branch, err = r.headName()
		return err
	})
	return ws, err
}

// statusName names a status code, the code itself when unknown.
func statusName(c git.StatusCode) string {
	if n, ok := statusNames[c]; ok {
		return n
	}
	return string(rune(c))
}

// headName is the checked-out branch or the short hash of a detached HEAD.
func (r *Repo) headName() (string, error) {
	head, err := r.git.Storer.Reference(plumbing.HEAD)
	if err != nil {
		return "", r.errorf(err, "reading HEAD")
	}
	if head.Type() == plumbing.SymbolicReference {
		return head.Target().Short(), nil
	}
	return head.Hash().String()[:7], nil
}
