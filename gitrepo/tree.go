package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Entry is one entry of a directory.
type Entry struct {
	Name string `json:"name"`
	// Path is relative to the repository root, "/"-separated.
	Path string `json:"path"`
	// Type is "dir", "file", "symlink" or "submodule".
	Type string `json:"type"`
	// Size is a file's or symlink's size in bytes; 0 for the others.
	Size int64 `json:"size"`
}

// Tree lists the entries directly under dir ("" or "." is the root) at ref:
// directories first, then the rest, each by name. An unknown ref or
// directory wraps ErrNotFound.
func (r *Repo) Tree(ctx context.Context, ref, dir string) ([]Entry, error) {
	dir, err := cleanPath(dir)
	if err != nil {
		return nil, r.errorf(err, "tree")
	}
	var entries []Entry
	err = r.read(ctx, func() error {
		tree, err := r.dirTree(ctx, ref, dir)
		if err != nil {
			return err
		}
		entries, err = r.listTree(tree, dir)
		return err
	})
	return entries, err
}

// dirTree finds the tree of dir at ref; r.mu is held.
func (r *Repo) dirTree(ctx context.Context, ref, dir string) (*object.Tree, error) {
	c, err := r.commit(ctx, ref)
	if err != nil {
		return nil, err
	}
	root, err := c.Tree()
	if err != nil {
		return nil, r.errorf(err, "reading the tree of %s", c.Hash)
	}
	if dir == "" {
		return root, nil
	}
	e, err := findEntry(root, dir)
	if err != nil {
		return nil, r.errorf(err, "directory %q at %q", dir, ref)
	}
	if e.Mode != filemode.Dir {
		return nil, r.errorf(errors.New("not a directory"), "%q at %q", dir, ref)
	}
	tree, err := root.Tree(dir)
	if err != nil {
		return nil, r.errorf(err, "reading directory %q", dir)
	}
	return tree, nil
}

// listTree turns a tree's entries into sorted Entries.
func (r *Repo) listTree(tree *object.Tree, dir string) ([]Entry, error) {
	entries := make([]Entry, 0, len(tree.Entries))
	for _, te := range tree.Entries {
		e := Entry{Name: te.Name, Path: joinPath(dir, te.Name), Type: entryType(te.Mode)}
		if e.Type == "file" || e.Type == "symlink" {
			size, err := r.git.Storer.EncodedObjectSize(te.Hash)
			if err != nil {
				return nil, r.errorf(err, "reading the size of %q", e.Path)
			}
			e.Size = size
		}
		entries = append(entries, e)
	}
	sort.SliceStable(entries, func(i, j int) bool {
		if di, dj := entries[i].Type == "dir", entries[j].Type == "dir"; di != dj {
			return di
		}
		return entries[i].Name < entries[j].Name
	})
	return entries, nil
}

// entryType names a tree entry's mode.
func entryType(m filemode.FileMode) string {
	switch m {
	case filemode.Dir:
		return "dir"
	case filemode.Symlink:
		return "symlink"
	case filemode.Submodule:
		return "submodule"
	}
	return "file"
}

// joinPath joins a cleaned directory ("" for the root) and a name.
func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// fileEntry finds a file's tree entry at commit c; r.mu is held.
func (r *Repo) fileEntry(c *object.Commit, file, ref string) (*object.TreeEntry, error) {
	root, err := c.Tree()
	if err != nil {
		return nil, r.errorf(err, "reading the tree of %s", c.Hash)
	}
	e, err := findEntry(root, file)
	if err != nil {
		return nil, r.errorf(err, "file %q at %q", file, ref)
	}
	switch e.Mode {
	case filemode.Dir:
		return nil, r.errorf(errors.New("is a directory; list it with tree"), "%q at %q", file, ref)
	case filemode.Submodule:
		return nil, r.errorf(fmt.Errorf("is a submodule at commit %s", e.Hash), "%q at %q", file, ref)
	}
	return e, nil
}

// findEntry finds the entry at p, wrapping ErrNotFound when there is none.
func findEntry(root *object.Tree, p string) (*object.TreeEntry, error) {
	e, err := root.FindEntry(p)
	if errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reading the tree: %w", err)
	}
	return e, nil
}
