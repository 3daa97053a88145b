package chat

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/internal/confine"
)

// toolRoot is the workspace the frontend tools work in. Every file they
// touch is opened through root (a confine.Root, an os.Root), so no path,
// however it is spelled and whatever symlink is swapped in while a tool
// runs, reaches a file outside the workspace: there is no check that a
// later open could outrun.
type toolRoot struct {
	root *confine.Root
	// dir is the workspace's absolute path with its symlinks resolved.
	dir string
}

// newToolRoot opens dir (relative to the working directory) as the root.
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
	root, err := confine.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("the workspace %s: %w", dir, err)
	}
	return &toolRoot{root: root, dir: root.Dir}, nil
}

// resolve maps a tool's path parameter ("" for the root) to the name to
// open it by in the root (".", or a slash path without symlinks, as they
// were when resolved) and its slash path relative to the root as the model
// wrote it ("" for the root itself). Absolute paths must lie inside the
// root; ".." is refused anywhere; a path whose symlinks lead outside the
// root is refused.
func (r *toolRoot) resolve(p string) (name, rel string, fail *toolspec.ResultError) {
	p = filepath.FromSlash(p)
	if strings.ContainsRune(p, 0) {
		return "", "", invalidParams("path contains a NUL byte")
	}
	for _, elem := range strings.Split(filepath.ToSlash(p), "/") {
		if elem == ".." {
			return "", "", &toolspec.ResultError{Code: codeOutside, Message: fmt.Sprintf("%q: paths may not contain \"..\"", filepath.ToSlash(p))}
		}
	}
	rel = filepath.ToSlash(filepath.Clean(p))
	if filepath.IsAbs(p) {
		var ok bool
		if rel, ok = r.relative(p); !ok {
			return "", "", outside(p)
		}
	}
	if rel == "." {
		rel = ""
	}
	name, err := r.root.Resolve(rel)
	switch {
	case confine.IsEscape(err):
		return "", "", outside(p)
	case errors.Is(err, fs.ErrNotExist):
		return "", "", &toolspec.ResultError{Code: codeNotFound, Message: fmt.Sprintf("%q does not exist in the workspace", filepath.ToSlash(p))}
	case err != nil:
		return "", "", ioFailure(p, err)
	}
	return name, rel, nil
}

// relative maps an absolute path to its slash path in the workspace: under
// the workspace's real path or the path it was given as, else, when p
// leads into the workspace through symlinks, under the real path of p.
// Resolving p here only names the file: it is opened through the root.
func (r *toolRoot) relative(p string) (string, bool) {
	if rel, ok := r.root.Rel(p); ok {
		return rel, true
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", false // elsewhere: whether it exists is none of the model's business
	}
	return r.root.Rel(real)
}

func outside(p string) *toolspec.ResultError {
	return &toolspec.ResultError{Code: codeOutside, Message: fmt.Sprintf("%q is outside the workspace", filepath.ToSlash(p))}
}

func ioFailure(p string, err error) *toolspec.ResultError {
	return &toolspec.ResultError{Code: codeIO, Message: fmt.Sprintf("%s: %v", filepath.ToSlash(p), unwrapPath(err))}
}

// unwrapPath drops the path a *fs.PathError carries: the model sees
// workspace paths only, as the message names them.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// stat stats the file the root names name; rel names it in messages.
func (r *toolRoot) stat(name, rel string) (fs.FileInfo, *toolspec.ResultError) {
	info, err := r.root.Stat(name)
	switch {
	case confine.IsEscape(err):
		return nil, outside(displayPath(rel))
	case err != nil:
		return nil, ioFailure(displayPath(rel), err)
	}
	return info, nil
}

// skippedDir reports whether a walk leaves out the directory name (an
// entry of a directory, never "." or ".."): hidden directories, VCS data
// such as .git among them, and dependencies.
func skippedDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor"
}

// walkFiles visits the files under the directory the root names name (rel
// is its path from the root as the model wrote it) in the order of their
// sorted slash paths, skipping skippedDir directories below it. Symlinks
// to directories are not followed; a symlink to a file is visited (with
// the name of its target in the root) only when it stays inside the root.
// visit returns stop to end the walk (walkFiles then returns errStopWalk).
// A subdirectory that cannot be read is left out; only the directory name
// itself must be readable.
func (r *toolRoot) walkFiles(ctx context.Context, name, rel string, visit func(rel, name string) (stop bool)) error {
	entries, err := r.readDir(name)
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
		child := path.Join(name, e.Name())
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

// readDir lists the directory the root names name.
func (r *toolRoot) readDir(name string) ([]fs.DirEntry, error) {
	f, err := r.root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// errStopWalk ends a walk early; walkFiles' callers treat it as success.
var errStopWalk = errors.New("stop the walk")

// fileTarget resolves a symlink met in a walk: ok only for a regular file
// inside the root.
func (r *toolRoot) fileTarget(link string) (string, bool) {
	target, err := r.root.Resolve(link)
	if err != nil {
		return "", false
	}
	info, err := r.root.Stat(target)
	if err != nil || !info.Mode().IsRegular() {
		return "", false
	}
	return target, true
}
