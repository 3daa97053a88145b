package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentgw/agentgw/internal/confine"
)

// resolveWorkdir resolves Workdir against BaseDir, follows symlinks and
// confines the result to the allowed roots. An empty Workdir is BaseDir.
func (t *Tool) resolveWorkdir() ([]string, error) {
	t.dir = t.BaseDir
	if t.Workdir == "" {
		return nil, nil
	}
	dir, err := t.confinedDir(t.Workdir)
	if err != nil {
		return nil, fmt.Errorf("workdir %q: %w", t.Workdir, err)
	}
	t.dir = dir
	return nil, nil
}

// confinedDir resolves p (relative to BaseDir) to an existing directory
// inside one of the allowed roots, and returns its path with symlinks
// resolved. The path is resolved through each root as an os.Root
// (confine.Root): a symlink or ".." that leads out of the root is refused
// by the root itself, not by comparing paths after the fact.
func (t *Tool) confinedDir(p string) (string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(t.BaseDir, p)
	}
	p = filepath.Clean(p)
	roots := t.m.roots(t.BaseDir)
	for _, r := range roots {
		dir, found, err := confinedIn(r, p)
		if err != nil {
			return "", err
		}
		if found {
			return dir, nil
		}
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("resolving: %w", err)
	}
	return "", fmt.Errorf("resolves to %s, outside the allowed roots (%s)", real, strings.Join(roots, ", "))
}

// confinedIn resolves the absolute path p to a directory inside the root
// dir, through an os.Root; found is false when p is not in it or leads out
// of it.
func confinedIn(dir, p string) (_ string, found bool, _ error) {
	r, err := confine.Open(dir)
	if err != nil {
		return "", false, nil // a root that is missing holds nothing
	}
	defer r.Close()
	rel, ok := r.Rel(p)
	if !ok {
		// p may lead into the root through symlinks above it; resolving
		// them only names the directory, which is opened through the root.
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return "", false, nil
		}
		if rel, ok = r.Rel(real); !ok {
			return "", false, nil
		}
	}
	name, err := r.Resolve(rel)
	switch {
	case confine.IsEscape(err):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("resolving: %w", err)
	}
	info, err := r.Stat(name)
	switch {
	case confine.IsEscape(err):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("resolving: %w", err)
	}
	real := filepath.Join(r.Dir, filepath.FromSlash(name))
	if !info.IsDir() {
		return "", false, fmt.Errorf("%s is not a directory", real)
	}
	return real, true, nil
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
