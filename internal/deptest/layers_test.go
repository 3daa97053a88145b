package deptest_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestFolderLayers: the module's top-level folders form layers. Whatever a
// package imports from another folder (tests aside), no package of that
// folder imports back into the first, directly or through other folders:
// the folder-level import drawing has no arrow going up (issue 27).
func TestFolderLayers(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goTool, "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", deptest.Module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	folder := func(pkg string) (string, bool) {
		rest, ok := strings.CutPrefix(pkg, deptest.Module+"/")
		if !ok {
			return "", false
		}
		f, _, _ := strings.Cut(rest, "/")
		return f, true
	}
	// edges[a][b] is one import that makes folder a depend on folder b.
	edges := map[string]map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		from, ok := folder(fields[0])
		if !ok {
			continue
		}
		for _, imp := range fields[1:] {
			to, ok := folder(imp)
			if !ok || to == from {
				continue
			}
			if edges[from] == nil {
				edges[from] = map[string]string{}
			}
			if _, seen := edges[from][to]; !seen {
				edges[from][to] = fields[0] + " imports " + imp
			}
		}
	}
	// A cycle through folder a: a path from one of a's dependencies back to a.
	var path func(from, to string, seen map[string]bool) []string
	path = func(from, to string, seen map[string]bool) []string {
		if from == to {
			return []string{to}
		}
		if seen[from] {
			return nil
		}
		seen[from] = true
		next := make([]string, 0, len(edges[from]))
		for n := range edges[from] {
			next = append(next, n)
		}
		slices.Sort(next)
		for _, n := range next {
			if p := path(n, to, seen); p != nil {
				return append([]string{from}, p...)
			}
		}
		return nil
	}
	folders := make([]string, 0, len(edges))
	for f := range edges {
		folders = append(folders, f)
	}
	slices.Sort(folders)
	for _, a := range folders {
		for b := range edges[a] {
			if p := path(b, a, map[string]bool{}); p != nil {
				var why []string
				cycle := append([]string{a}, p...)
				for i := 0; i+1 < len(cycle); i++ {
					why = append(why, edges[cycle[i]][cycle[i+1]])
				}
				t.Errorf("folders %s import each other:\n\t%s", strings.Join(cycle, " → "), strings.Join(why, "\n\t"))
				break
			}
		}
	}
	if len(folders) < 10 {
		t.Errorf("only %d folders import others: the listing is wrong", len(folders))
	}
}
