// Package confine keeps paths inside a directory, for chat's workspace and
// the tools' workdirs and mounts. A directory is an os.Root, opened once:
// whatever is opened through it stays inside it, even when a symlink is
// swapped in after a path was resolved, so no check can be outrun by a
// later open. It imports nothing of the project, so every package may use
// it.
package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ErrOutside is a path, or a symlink on it, that leads outside the root.
var ErrOutside = errors.New("outside the root")

// maxLinks bounds the symlinks one path may go through.
const maxLinks = 40

// Root is a directory that paths are confined to.
type Root struct {
	*os.Root
	// Dir is the directory's absolute path with its symlinks resolved, and
	// Abs its absolute path as given: the names under which absolute paths
	// and absolute symlinks may point into it.
	Dir, Abs string
}

// Open opens dir (relative to the working directory) as a Root.
func Open(dir string) (*Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, err
	}
	return &Root{Root: r, Dir: real, Abs: abs}, nil
}

// Rel maps an absolute path lexically under Dir or Abs to its slash path
// in the root ("." for the root itself); false when it is elsewhere.
func (r *Root) Rel(abs string) (string, bool) {
	abs = filepath.Clean(abs)
	for _, dir := range []string{r.Dir, r.Abs} {
		if rel, err := filepath.Rel(dir, abs); err == nil && (filepath.IsLocal(rel) || rel == ".") {
			return filepath.ToSlash(rel), true
		}
	}
	return "", false
}

// Resolve follows the symlinks of the slash path rel ("" or "." for the
// root), reading them through the root, and returns the name the file has
// in the root: "." or a local slash path without symlinks. A relative
// symlink is followed inside the root, an absolute one when it points into
// it (os.Root alone refuses absolute symlinks); any other, like a path
// that climbs out with "..", is ErrOutside. A missing element is an error
// satisfying errors.Is(err, fs.ErrNotExist). The name only names the file:
// opening it through the root cannot leave the root, whatever was swapped
// in since.
func (r *Root) Resolve(rel string) (string, error) {
	if rel == "" || rel == "." {
		return ".", nil
	}
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", ErrOutside
	}
	done, todo := "", strings.Split(rel, "/")
	for links := 0; len(todo) > 0; {
		next := path.Join(done, todo[0])
		todo = todo[1:]
		info, err := r.Lstat(next)
		switch {
		case IsEscape(err):
			return "", ErrOutside
		case err != nil:
			return "", err
		case info.Mode()&fs.ModeSymlink == 0:
			done = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("%s: too many levels of symbolic links", rel)
		}
		target, err := r.Readlink(next)
		if err != nil {
			return "", err
		}
		var base string
		if filepath.IsAbs(target) {
			var ok bool
			if base, ok = r.Rel(target); !ok {
				return "", ErrOutside
			}
		} else if base = path.Join(done, filepath.ToSlash(target)); !filepath.IsLocal(filepath.FromSlash(base)) && base != "." {
			return "", ErrOutside
		}
		done, todo = "", append(strings.Split(base, "/"), todo...)
	}
	if done == "" {
		return ".", nil
	}
	return done, nil
}

// IsEscape reports whether err is os.Root's refusal of a path that leaves
// the root (the standard library exports no sentinel for it), or
// ErrOutside.
func IsEscape(err error) bool {
	if errors.Is(err, ErrOutside) {
		return true
	}
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "path escapes from parent"
}
