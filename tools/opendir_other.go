//go:build !linux

package tools

import "os"

// openDirName reports that an open directory has no path here that a
// child could change into: os/exec takes the working directory by path
// only, so the child is given the directory's path.
func openDirName(*os.File) (string, bool) { return "", false }
