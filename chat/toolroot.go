package chat

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/internal/confine"
	"github.com/agentgw/agentgw/tools"
)

// toolRoot is the workspace the frontend tools work in: an absolute path
// with its symlinks resolved, so that a path's real location can be checked
// against it (confine.Within).
type toolRoot struct {
	dir string
}

// newToolRoot resolves dir (relative to the working directory) to the root.
func newToolRoot(dir string) (*toolRoot, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("the workspace %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("the workspace %s: %w", dir, err)
	}
	info, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("the workspace %s: %w", dir, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("the workspace %s is not a directory", dir)
	}
	return &toolRoot{dir: real}, nil
}

// resolve maps a tool's path parameter ("" for the root) to its real
// location and its slash-separated path relative to the root ("" for the
// root itself). Absolute paths must lie inside the root; ".." is refused
// anywhere; a path whose symlinks lead outside the root is refused.
func (r *toolRoot) resolve(p string) (real, rel string, fail *tools.ResultError) {
	p = filepath.FromSlash(p)
	if strings.ContainsRune(p, 0) {
		return "", "", invalidParams("path contains a NUL byte")
	}
	for _, elem := range strings.Split(filepath.ToSlash(p), "/") {
		if elem == ".." {
			return "", "", &tools.ResultError{Code: codeOutside, Message: fmt.Sprintf("%q: paths may not contain \"..\"", filepath.ToSlash(p))}
		}
	}
	joined := filepath.Join(r.dir, p)
	if filepath.IsAbs(p) {
		joined = filepath.Clean(p)
	}
	real, err := filepath.EvalSymlinks(joined)
	switch {
	case err != nil && !confine.Within(r.dir, joined):
		return "", "", outside(p) // an absolute path elsewhere: whether it exists is none of the model's business
	case errors.Is(err, fs.ErrNotExist):
		return "", "", &tools.ResultError{Code: codeNotFound, Message: fmt.Sprintf("%q does not exist in the workspace", filepath.ToSlash(p))}
	case err != nil:
		return "", "", ioFailure(p, err)
	case !confine.Within(r.dir, real):
		return "", "", outside(p)
	}
	// The path as written when it is under the root; else it is an
	// absolute path through a symlink to the root, and the real one is.
	under := joined
	if !confine.Within(r.dir, joined) {
		under = real
	}
	rel, _ = filepath.Rel(r.dir, under)
	if rel == "." {
		rel = ""
	}
	return real, filepath.ToSlash(rel), nil
}

func outside(p string) *tools.ResultError {
	return &tools.ResultError{Code: codeOutside, Message: fmt.Sprintf("%q is outside the workspace", filepath.ToSlash(p))}
}

func ioFailure(p string, err error) *tools.ResultError {
	return &tools.ResultError{Code: codeIO, Message: fmt.Sprintf("%s: %v", filepath.ToSlash(p), unwrapPath(err))}
}

// unwrapPath drops the absolute path a *fs.PathError carries: the model
// sees workspace paths only.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// skippedDir reports whether a walk leaves out the directory name (an
// entry of os.ReadDir, never "." or ".."): hidden directories, VCS data
// such as .git among them, and dependencies.
func skippedDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor"
}

// walkFiles visits the files under the directory real (rel is its path from
// the root) in the order of their sorted slash paths, skipping skippedDir
// directories below it. Symlinks to directories are not followed; a symlink
// to a file is visited (with its real path) only when it stays inside the
// root. visit returns stop to end the walk (walkFiles then returns
// errStopWalk). A subdirectory that cannot be read is left out; only the
// directory real itself must be readable.
func (r *toolRoot) walkFiles(ctx context.Context, real, rel string, visit func(rel, real string) (stop bool)) error {
	entries, err := os.ReadDir(real)
	if err != nil {
		return err
	}
	// Sort by the path each entry's subtree has: a directory as "name/".
	key := func(e fs.DirEntry) string {
		if e.IsDir() {
			return e.Name() + "/"
		}
		return e.Name()
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(key(a), key(b)) })
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		childRel := e.Name()
		if rel != "" {
			childRel = rel + "/" + e.Name()
		}
		child := filepath.Join(real, e.Name())
		switch {
		case e.IsDir():
			if skippedDir(e.Name()) {
				continue
			}
			err := r.walkFiles(ctx, child, childRel, visit)
			if errors.Is(err, errStopWalk) || ctx.Err() != nil {
				return err
			}
			continue
		case e.Type()&fs.ModeSymlink != 0:
			target, ok := r.fileTarget(child)
			if !ok {
				continue
			}
			child = target
		case !e.Type().IsRegular():
			continue
		}
		if visit(childRel, child) {
			return errStopWalk
		}
	}
	return nil
}

// errStopWalk ends a walk early; walkFiles' callers treat it as success.
var errStopWalk = errors.New("stop the walk")

// fileTarget resolves a symlink met in a walk: ok only for a regular file
// inside the root.
func (r *toolRoot) fileTarget(link string) (string, bool) {
	target, err := filepath.EvalSymlinks(link)
	if err != nil || !confine.Within(r.dir, target) {
		return "", false
	}
	info, err := os.Stat(target)
	if err != nil || !info.Mode().IsRegular() {
		return "", false
	}
	return target, true
}
