package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentgw/agentgw/internal/confine"
)

// resolveWorkdir resolves Workdir against BaseDir, follows symlinks and
// confines the result to the allowed roots. An empty Workdir is BaseDir,
// which is not confined (it is where the spec itself lives).
func (t *Tool) resolveWorkdir() ([]string, error) {
	t.dir, t.workdir = t.BaseDir, nil
	if t.Workdir == "" {
		return nil, nil
	}
	d, err := t.confinedDir(t.Workdir)
	if err != nil {
		return nil, fmt.Errorf("workdir %q: %w", t.Workdir, err)
	}
	t.dir, t.workdir = d.path, &d
	return nil, nil
}

// confined is a directory resolved inside an allowed root when the tool
// was loaded. A call does not use it by its path, which a symlink swapped
// in since could lead elsewhere: it opens name through the root again
// (open, openRoot), so what it gets is inside the root or an error.
type confined struct {
	root string // the allowed root, symlinks resolved
	name string // the directory in root: "." or a local slash path without symlinks
	path string // root and name joined, for messages (and where no handle can be used)
}

// open opens the directory through its root for one call. Symlinks that
// were swapped in since the tool was loaded are followed as far as they
// stay inside the root (confine.Root.Resolve); one that leads out, or a
// directory that is gone or no longer a directory, is an error.
func (d *confined) open() (*os.File, error) {
	r, name, err := d.resolve()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.Open(name)
	if err != nil {
		return nil, d.openError(err)
	}
	info, err := f.Stat()
	if err == nil && !info.IsDir() {
		err = fmt.Errorf("%s is not a directory now", d.path)
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// openRoot opens the directory through its root, as open does, as an
// os.Root of its own: what is opened through it stays inside it.
func (d *confined) openRoot() (*os.Root, error) {
	r, name, err := d.resolve()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	dr, err := r.OpenRoot(name)
	if err != nil {
		return nil, d.openError(err)
	}
	return dr, nil
}

// resolve opens the root and resolves the directory's name in it now.
func (d *confined) resolve() (*confine.Root, string, error) {
	r, err := confine.Open(d.root)
	if err != nil {
		return nil, "", fmt.Errorf("opening the root of %s: %w", d.path, err)
	}
	name, err := r.Resolve(d.name)
	if err != nil {
		_ = r.Close()
		return nil, "", d.openError(err)
	}
	return r, name, nil
}

// openError describes a failure to open the directory through its root.
func (d *confined) openError(err error) error {
	if confine.IsEscape(err) {
		return fmt.Errorf("%s now leads outside the root %s", d.path, d.root)
	}
	return fmt.Errorf("opening %s: %w", d.path, err)
}

// confinedDir resolves p (relative to BaseDir) to an existing directory
// inside one of the allowed roots. The path is resolved through each root
// as an os.Root (confine.Root): a symlink or ".." that leads out of the
// root is refused by the root itself, not by comparing paths after the
// fact.
func (t *Tool) confinedDir(p string) (confined, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(t.BaseDir, p)
	}
	p = filepath.Clean(p)
	roots := t.m.roots(t.BaseDir)
	for _, r := range roots {
		d, found, err := confinedIn(r, p)
		if err != nil {
			return confined{}, err
		}
		if found {
			return d, nil
		}
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return confined{}, fmt.Errorf("resolving: %w", err)
	}
	return confined{}, fmt.Errorf("resolves to %s, outside the allowed roots (%s)", real, strings.Join(roots, ", "))
}

// confinedIn resolves the absolute path p to a directory inside the root
// dir, through an os.Root; found is false when p is not in it or leads out
// of it.
func confinedIn(dir, p string) (_ confined, found bool, _ error) {
	r, err := confine.Open(dir)
	if err != nil {
		return confined{}, false, nil // a root that is missing holds nothing
	}
	defer r.Close()
	rel, ok := r.Rel(p)
	if !ok {
		// p may lead into the root through symlinks above it; resolving
		// them only names the directory, which is opened through the root.
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return confined{}, false, nil
		}
		if rel, ok = r.Rel(real); !ok {
			return confined{}, false, nil
		}
	}
	name, err := r.Resolve(rel)
	switch {
	case confine.IsEscape(err):
		return confined{}, false, nil
	case err != nil:
		return confined{}, false, fmt.Errorf("resolving: %w", err)
	}
	info, err := r.Stat(name)
	switch {
	case confine.IsEscape(err):
		return confined{}, false, nil
	case err != nil:
		return confined{}, false, fmt.Errorf("resolving: %w", err)
	}
	real := filepath.Join(r.Dir, filepath.FromSlash(name))
	if !info.IsDir() {
		return confined{}, false, fmt.Errorf("%s is not a directory", real)
	}
	return confined{root: r.Dir, name: name, path: real}, true, nil
}

// roots returns the allowed roots with symlinks resolved: Config.WorkRoots,
// or baseDir when none are configured.
func (m *Manager) roots(baseDir string) []string {
	roots := m.cfg.WorkRoots
	if len(roots) == 0 {
		roots = []string{baseDir}
	}
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		out = append(out, abs)
	}
	return out
}

// entryPath resolves a process or wasm entry: absolute as is, with a path
// separator relative to BaseDir, a bare name in BaseDir when a file is
// there, else looked up on PATH when lookPath is set.
func (t *Tool) entryPath(lookPath func(string) (string, error)) (string, bool) {
	e := t.Entry
	switch {
	case filepath.IsAbs(e):
		return e, fileExists(e)
	case strings.ContainsRune(e, '/') || strings.ContainsRune(e, filepath.Separator):
		p := filepath.Join(t.BaseDir, e)
		return p, fileExists(p)
	}
	p := filepath.Join(t.BaseDir, e)
	if fileExists(p) || lookPath == nil {
		return p, fileExists(p)
	}
	if found, err := lookPath(e); err == nil {
		return found, true
	}
	return p, false
}

// fileExists reports whether p names an existing regular file.
func fileExists(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}
