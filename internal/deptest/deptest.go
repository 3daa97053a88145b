// Package deptest keeps light packages light, in the manner of Tailscale's
// deptest: a package's test lists what the package pulls in when built
// (its non-test dependencies, transitively) and fails on anything outside
// the list it is allowed. The standard library is always allowed.
package deptest

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Module is the project's module path.
const Module = "github.com/agentgw/agentgw"

// Leaf are the project's internal packages that import nothing of the
// project, so that every package may use them.
var Leaf = []string{
	Module + "/internal/jsonscan",
	Module + "/internal/runes",
	Module + "/internal/pathglob",
	Module + "/internal/suggest",
	Module + "/internal/watchdog",
	Module + "/internal/jsonnum",
	Module + "/internal/jsonlog",
}

// Check fails t if the package at import path pkg depends, directly or
// not, on a package that is neither in the standard library nor in allowed.
// An allowed entry ending in "/..." allows the path and everything below it.
func Check(t *testing.T, pkg string, allowed ...string) {
	t.Helper()
	if bad := matching(t, pkg, func(d string) bool { return d != pkg && !Allowed(d, allowed) }); len(bad) > 0 {
		t.Errorf("%s depends on %d packages it must not (allowed: the standard library and %s):\n\t%s",
			pkg, len(bad), strings.Join(allowed, ", "), strings.Join(bad, "\n\t"))
	}
}

// Allowed reports whether the import path dep matches an entry of allowed.
func Allowed(dep string, allowed []string) bool {
	return slices.ContainsFunc(allowed, func(a string) bool {
		if base, ok := strings.CutSuffix(a, "/..."); ok {
			return dep == base || strings.HasPrefix(dep, base+"/")
		}
		return dep == a
	})
}

// List returns the non-standard packages pkg depends on when built
// (tests excluded), sorted, as `go list -deps` reports them.
func List(pkg string) ([]string, error) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := exec.LookPath(goTool); err != nil {
		goTool = "go"
	}
	out, err := exec.Command(goTool, "list", "-deps",
		"-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return nil, &listError{err: err, stderr: string(ee.Stderr)}
		}
		return nil, err
	}
	var deps []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			deps = append(deps, l)
		}
	}
	slices.Sort(deps)
	return deps, nil
}

type listError struct {
	err    error
	stderr string
}

func (e *listError) Error() string {
	return "go list: " + e.err.Error() + ": " + strings.TrimSpace(e.stderr)
}
func (e *listError) Unwrap() error { return e.err }

// Heavy are the runtimes and drivers a light package must not link: the
// databases, the job queue, git, the WASM runtime, the expression engine
// and the HTTP framework.
var Heavy = []string{
	"modernc.org/sqlite/...",
	"github.com/jackc/pgx/v5/...",
	"github.com/riverqueue/river/...",
	"github.com/go-git/go-git/v5/...",
	"github.com/tetratelabs/wazero/...",
	"github.com/expr-lang/expr/...",
	"github.com/labstack/echo/v4/...",
}

// Forbid fails t if the package at import path pkg depends, directly or
// not, on a package matching an entry of forbidden (entries as in Check).
func Forbid(t *testing.T, pkg string, forbidden ...string) {
	t.Helper()
	if bad := matching(t, pkg, func(d string) bool { return Allowed(d, forbidden) }); len(bad) > 0 {
		t.Errorf("%s depends on %d packages it must not link:\n\t%s", pkg, len(bad), strings.Join(bad, "\n\t"))
	}
}

// HeavyBut is Heavy without the entries given (each as Heavy spells it):
// what a package that needs one of them may not link besides.
func HeavyBut(keep ...string) []string {
	var out []string
	for _, h := range Heavy {
		if !slices.Contains(keep, h) {
			out = append(out, h)
		}
	}
	return out
}

// matching returns the dependencies of pkg that bad reports, failing t
// when they cannot be listed.
func matching(t *testing.T, pkg string, bad func(dep string) bool) []string {
	t.Helper()
	deps, err := List(pkg)
	if err != nil {
		t.Fatalf("listing the dependencies of %s: %v", pkg, err)
	}
	var out []string
	for _, d := range deps {
		if bad(d) {
			out = append(out, d)
		}
	}
	return out
}
