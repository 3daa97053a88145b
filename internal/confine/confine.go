// Package confine tells whether a path stays inside a directory, for the
// tools' workdirs and mounts and for chat's workspace. It imports nothing
// of the project, so every package may use it.
package confine

import (
	"path/filepath"
	"strings"
)

// Within reports whether p is root or below it. Both are clean absolute
// paths; resolving symlinks first is the caller's part.
func Within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil || filepath.IsAbs(rel) {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
