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

// confinedDir resolves p (relative to BaseDir) to an existing directory,
// symlinks followed, that lies inside one of the allowed roots.
func (t *Tool) confinedDir(p string) (string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(t.BaseDir, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("resolving: %w", err)
	}
	info, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("resolving: %w", err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("%s is not a directory", real)
	}
	roots := t.m.roots(t.BaseDir)
	for _, r := range roots {
		if confine.Within(r, real) {
			return real, nil
		}
	}
	return "", fmt.Errorf("resolves to %s, outside the allowed roots (%s)", real, strings.Join(roots, ", "))
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
