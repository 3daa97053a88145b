package collect

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentgw/agentgw/contextvars"
)

// maxPackageFileSize is the size above which a package file is skipped.
const maxPackageFileSize = 256 << 10

// defaultPackageFiles is how many files PackageFiles returns when max <= 0.
const defaultPackageFiles = 10

// PackageFiles returns the package manager files (go.mod,
// package.json, pom.xml, Cargo.toml, ...) of the project: under the root of
// the git repository containing dir, or under dir when it is in none. It skips
// .git, node_modules, vendor, target, dist, build, .venv and hidden
// directories, and files over 256 KiB. Shallowest files come first, then by
// path; at most limit (10 when limit <= 0). Paths are relative to the root, with
// forward slashes.
func PackageFiles(dir string, limit int) ([]contextvars.PackageFile, error) {
	if limit <= 0 {
		limit = defaultPackageFiles
	}
	root := projectRoot(dir)
	level := []string{"."}
	files := []contextvars.PackageFile{}
	for len(level) > 0 && len(files) < limit {
		found, next, err := scanLevel(root, level)
		if err != nil {
			return nil, fmt.Errorf("collecting packageFiles: %w", err)
		}
		for _, rel := range found {
			if len(files) == limit {
				break
			}
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
			if err != nil {
				continue // vanished or unreadable: not worth failing for
			}
			files = append(files, contextvars.PackageFile{Filepath: rel, Content: string(data)})
		}
		level = next
	}
	return files, nil
}

// projectRoot is the worktree root of the repository containing dir, else dir.
func projectRoot(dir string) string {
	if repo, err := openRepository(dir); err == nil {
		if wt, err := repo.Worktree(); err == nil {
			return wt.Filesystem.Root()
		}
	}
	return dir
}

// scanLevel lists the directories of one depth (slash paths relative to
// root) and returns their package files and their subdirectories, sorted.
func scanLevel(root string, dirs []string) (found, next []string, err error) {
	for _, d := range dirs {
		entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(d)))
		if err != nil {
			if d == "." {
				return nil, nil, err
			}
			continue // an unreadable subdirectory is skipped
		}
		for _, e := range entries {
			rel := path.Join(d, e.Name())
			switch {
			case e.IsDir():
				if !skipDir(e.Name()) {
					next = append(next, rel)
				}
			case e.Type().IsRegular() && isPackageFile(e.Name()):
				if info, err := e.Info(); err == nil && info.Size() <= maxPackageFileSize {
					found = append(found, rel)
				}
			}
		}
	}
	sort.Strings(found)
	sort.Strings(next)
	return found, next, nil
}

func skipDir(name string) bool {
	switch name {
	case "node_modules", "vendor", "target", "dist", "build":
		return true
	}
	return strings.HasPrefix(name, ".")
}

func isPackageFile(name string) bool {
	switch name {
	case "go.mod", "package.json", "pom.xml", "build.gradle", "build.gradle.kts", "Cargo.toml",
		"requirements.txt", "pyproject.toml", "setup.py", "Pipfile", "Gemfile", "composer.json",
		"CMakeLists.txt", "pubspec.yaml":
		return true
	}
	return strings.HasSuffix(name, ".csproj")
}
