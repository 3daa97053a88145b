package harness

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The two modules of the repository: the gateway's, at the root, and the
// bench's own (bench/go.mod), which imports nothing of the gateway's and
// builds it as a program.
const (
	mainModule  = "github.com/agentgw/agentgw"
	benchModule = "github.com/agentgw/agentgw/bench"
)

// RepoRoot is the repository's root, the directory of the gateway's go.mod,
// from the go.mod of the current directory: the root's own (go run ./bench
// from the root, through go.work) or the bench module's (from bench/).
func RepoRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	return RootOf(strings.TrimSpace(string(out)))
}

// RootOf is RepoRoot for the go.mod at gomod ("" or os.DevNull outside any
// module).
func RootOf(gomod string) (string, error) {
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("not inside the agentgw repository: run go run ./bench from its root")
	}
	dir := filepath.Dir(gomod)
	mod, err := modulePath(gomod)
	if err != nil {
		return "", err
	}
	switch mod {
	case mainModule:
		return dir, nil
	case benchModule:
		root := filepath.Dir(dir)
		if mod, err := modulePath(filepath.Join(root, "go.mod")); err != nil || mod != mainModule {
			return "", fmt.Errorf("the bench module at %s is not in the agentgw repository (%s/go.mod is not %s)", dir, root, mainModule)
		}
		return root, nil
	}
	return "", fmt.Errorf("%s is module %s, not agentgw's: run go run ./bench from the agentgw repository's root", gomod, mod)
}

// modulePath reads the module path of the go.mod at path.
func modulePath(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading the module path: %w", err)
	}
	for line := range strings.Lines(string(b)) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		rest, _, _ = strings.Cut(rest, "//")
		return strings.Trim(strings.TrimSpace(rest), `"`), nil
	}
	return "", fmt.Errorf("%s has no module line", path)
}

// Packages are packages built from one module's directory.
type Packages struct {
	Dir  string   // the module's directory
	Pkgs []string // relative package paths, e.g. ./cmd/agentgw
	// Env is added to go build's environment, e.g. CGO_ENABLED=0.
	Env []string
}

// Build compiles each module's packages into dir/bin, each from its own
// module alone (GOWORK=off): agentgw is the binary the Dockerfile and CI
// build, whatever the bench module requires.
func Build(ctx context.Context, dir string, mods ...Packages) error {
	bin := filepath.Join(dir, "bin") + string(filepath.Separator)
	for _, b := range mods {
		cmd := exec.CommandContext(ctx, "go", append([]string{"build", "-o", bin}, b.Pkgs...)...)
		cmd.Dir = b.Dir
		cmd.Env = append(append(os.Environ(), "GOWORK=off"), b.Env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s in %s: %w\n%s", strings.Join(b.Pkgs, " "), b.Dir, err, out)
		}
	}
	return nil
}
