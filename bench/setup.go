package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// stack is every server of a run.
type stack struct {
	mock     *process // the model platform, HTTP/1.1 and h2c
	proxy    *process // the bare reference proxy, HTTP/1.1 upstream
	proxyH2C *process // the bare reference proxy, h2c upstream (idle scenario)
	gw       *process // agentgw, warn-level logs
	gwInfo   *process // agentgw, info-level access logs (the default)
	gwH2C    *process // agentgw, h2c upstream and no pings (idle scenario)
}

// idleConfig is the gateway config of the idle scenario's agentgw: HTTP/2
// cleartext upstream (few connections, few fds), no ": ping" comments and
// no upstream idle timeout while the streams sit idle.
const idleConfig = `upstream:
  http2Cleartext: true
  idleTimeout: 1h
server:
  keepAlive: 1h
`

// The two modules of the repository: the gateway's, at the root, and the
// bench's own (bench/go.mod), which imports nothing of the gateway's and
// builds it as a program.
const (
	mainModule  = "github.com/agentgw/agentgw"
	benchModule = "github.com/agentgw/agentgw/bench"
)

// repoRoot is the repository's root, the directory of the gateway's go.mod,
// from the go.mod of the current directory: the root's own (go run ./bench
// from the root, through go.work) or the bench module's (from bench/).
func repoRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	return rootOf(strings.TrimSpace(string(out)))
}

// rootOf is repoRoot for the go.mod at gomod ("" or os.DevNull outside any
// module).
func rootOf(gomod string) (string, error) {
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

// build compiles agentgw, the mock and the proxy into dir/bin, each from its
// own module alone (GOWORK=off): agentgw is the binary the Dockerfile and CI
// build, whatever the bench module requires.
func build(ctx context.Context, root, dir string) error {
	bin := filepath.Join(dir, "bin") + string(filepath.Separator)
	for _, b := range []struct {
		dir  string
		pkgs []string
	}{
		{root, []string{"./cmd/agentgw"}},
		{filepath.Join(root, "bench"), []string{"./mockupstream", "./refproxy"}},
	} {
		cmd := exec.CommandContext(ctx, "go", append([]string{"build", "-o", bin}, b.pkgs...)...)
		cmd.Dir = b.dir
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s in %s: %w\n%s", strings.Join(b.pkgs, " "), b.dir, err, out)
		}
	}
	return nil
}

// startStack starts the mock, the two proxies and the three gateways.
func startStack(ctx context.Context, ps *procSet, root string) (*stack, error) {
	bin := func(name string) string { return filepath.Join(ps.dir, "bin", name) }
	s := &stack{}
	var err error
	if s.mock, err = ps.start(ctx, "mockupstream", bin("mockupstream"), []string{"-addr", "127.0.0.1:0"}, nil, "stdout", false); err != nil {
		return nil, err
	}
	upstream := "http://" + s.mock.addr
	proxyArgs := []string{"-addr", "127.0.0.1:0", "-upstream", upstream, "-debug-addr", "127.0.0.1:0"}
	if s.proxy, err = ps.start(ctx, "refproxy", bin("refproxy"), proxyArgs, nil, "stdout", true); err != nil {
		return nil, err
	}
	if s.proxyH2C, err = ps.start(ctx, "refproxy-h2c", bin("refproxy"), append(proxyArgs, "-h2c"), nil, "stdout", true); err != nil {
		return nil, err
	}
	idleCfg := filepath.Join(ps.dir, "idle.yaml")
	if err := os.WriteFile(idleCfg, []byte(idleConfig), 0o644); err != nil {
		return nil, fmt.Errorf("writing the idle gateway config: %w", err)
	}
	agents := filepath.Join(root, "bench", "agents")
	gws := []struct {
		name string
		p    **process
		env  []string
	}{
		{"agentgw", &s.gw, []string{"AGENTGW_LOG_LEVEL=warn"}},
		{"agentgw-info", &s.gwInfo, []string{"AGENTGW_LOG_LEVEL=info"}},
		{"agentgw-h2c", &s.gwH2C, []string{"AGENTGW_LOG_LEVEL=warn", "AGENTGW_CONFIG=" + idleCfg}},
	}
	for _, g := range gws {
		if *g.p, err = startGateway(ctx, ps, g.name, bin("agentgw"), agents, upstream, g.env); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// startGateway runs agentgw serve on free loopback ports.
func startGateway(ctx context.Context, ps *procSet, name, bin, agents, upstream string, env []string) (*process, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	debug, err := freeAddr()
	if err != nil {
		return nil, err
	}
	// A data directory of its own in the work directory: never the user's
	// state directory, and the gateway's default store (SQLite) as an
	// operator runs it.
	data := filepath.Join(ps.dir, name+"-data")
	args := []string{"serve", "--addr", addr, "--agents", agents, "--upstream", upstream, "--debug-addr", debug, "--data", data}
	p, err := ps.start(ctx, name, bin, args, append(env, "AGENTGW_LOG_FORMAT=json"), addr, false)
	if err != nil {
		return nil, err
	}
	p.debugAddr = debug
	return p, nil
}
