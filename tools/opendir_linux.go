package tools

import (
	"os"
	"strconv"
)

// openDirName names the open directory f by a path that leads to f itself
// for as long as f is open, whatever is at f's old path now:
// /proc/self/fd/N. A child started with it as Dir resolves it after the
// fork, in its own copy of the parent's descriptors, before exec closes
// them. ok is false when /proc is not mounted.
func openDirName(f *os.File) (string, bool) {
	name := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	info, err := os.Stat(name)
	if err != nil || !info.IsDir() {
		return "", false
	}
	return name, true
}
