package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentgw/agentgw/bench/internal/harness"
)

// stack is every server of a run.
type stack struct {
	mock     *harness.Process // the model platform, HTTP/1.1 and h2c
	proxy    *harness.Process // the bare reference proxy, HTTP/1.1 upstream
	proxyH2C *harness.Process // the bare reference proxy, h2c upstream (idle scenario)
	gw       *harness.Process // agentgw with its defaults: info-level access log, metrics on
	gwWarn   *harness.Process // agentgw at warn level with metrics off (no observer)
	gwH2C    *harness.Process // agentgw with its defaults, h2c upstream and no pings (idle scenario)
	gwPG     *harness.Process // agentgw with its defaults on PostgreSQL (-pg), else nil
	// gwGov is agentgw with its defaults and the governance of issue 31 on
	// (a stored key, usage recorded against a team budget, the content
	// guard), else nil; govKey is the key's secret.
	gwGov  *harness.Process
	govKey string
	// recalls are the recall path's gateways (-recall-chunks), one per
	// store (SQLite, and PostgreSQL with -pg), else none.
	recalls []*recallGateway
	// gwUsage is agentgw with its defaults, usage recorded and a team
	// budget on every request (usageConfig), asked with usageKey, a
	// stored key of that team; nil with -skip usage.
	gwUsage  *harness.Process
	usageKey string
}

// governedConfig is the config of the governed gateway: stored keys, usage
// recorded and held to a team budget too large to be reached, and the
// content guard excluding the usual secret files and redacting credentials,
// as docs/keys.md, docs/usage.md and docs/security/content.md configure
// them. Its store is its data directory's SQLite, as the defaults'.
const governedConfig = `server:
  keys: true
usage:
  record: true
  prices:
    "*": {input: 3.00, output: 15.00}
  budgets:
    - team: bench
      tokensPerDay: 1000000000000
      requestsPerMinute: 1000000000
contentGuard:
  exclude: [.env, ".env.*", "secrets/**", "*.pem", "*.key"]
  redact: true
`

// usageConfig is the gateway config of the usage path's agentgw: usage
// recorded and a budget of team bench (tokens per day and requests per
// minute, never reached) that every request of its key reserves on
// before the model is called and settles after (docs/usage.md).
const usageConfig = `usage:
  record: true
  prices:
    "*": {input: 1, output: 2}
  budgets:
    - team: bench
      tokensPerDay: 1000000000000000
      requestsPerMinute: 1000000000000
`

// idleConfig is the gateway config of the idle scenario's agentgw: HTTP/2
// cleartext upstream (few connections, few fds), no ": ping" comments and
// no upstream idle timeout while the streams sit idle.
const idleConfig = `upstream:
  http2Cleartext: true
  idleTimeout: 1h
server:
  keepAlive: 1h
`

// build compiles agentgw, the mock and the proxy into dir/bin, each from its
// own module alone (GOWORK=off): agentgw is the binary the Dockerfile and CI
// build, whatever the bench module requires. All are built without cgo, as
// the Dockerfile builds agentgw (CGO_ENABLED=0): with cgo, where a C
// compiler is found, each process maps the C library and its loader, about
// 1.4 MiB more resident (bench/README.md, 2026-11-30). Symbols are kept
// (no -s -w, which does not change what is resident) for perf.
func build(ctx context.Context, root, dir string) error {
	noCgo := []string{"CGO_ENABLED=0"}
	return harness.Build(ctx, dir,
		harness.Packages{Dir: root, Pkgs: []string{"./cmd/agentgw"}, Env: noCgo},
		harness.Packages{Dir: filepath.Join(root, "bench"), Pkgs: []string{"./mockupstream", "./refproxy"}, Env: noCgo})
}

// startStack starts the mock (on mockAddr, a free port when it ends in
// :0), the two proxies and the three gateways, one more on the PostgreSQL
// database pgStore when it is set, the usage one when usage and the
// governed one when governed.
func startStack(ctx context.Context, ps *harness.Set, root, mockAddr, pgStore string, usage, governed bool) (*stack, error) {
	bin := func(name string) string { return filepath.Join(ps.Dir, "bin", name) }
	s := &stack{}
	var err error
	if s.mock, err = ps.Start(ctx, "mockupstream", bin("mockupstream"), []string{"-addr", mockAddr}, nil, "stdout", false); err != nil {
		return nil, err
	}
	upstream := "http://" + s.mock.Addr
	proxyArgs := []string{"-addr", "127.0.0.1:0", "-upstream", upstream, "-debug-addr", "127.0.0.1:0"}
	if s.proxy, err = ps.Start(ctx, "refproxy", bin("refproxy"), proxyArgs, nil, "stdout", true); err != nil {
		return nil, err
	}
	if s.proxyH2C, err = ps.Start(ctx, "refproxy-h2c", bin("refproxy"), append(proxyArgs, "-h2c"), nil, "stdout", true); err != nil {
		return nil, err
	}
	idleCfg := filepath.Join(ps.Dir, "idle.yaml")
	if err := os.WriteFile(idleCfg, []byte(idleConfig), 0o644); err != nil {
		return nil, fmt.Errorf("writing the idle gateway config: %w", err)
	}
	agents := filepath.Join(root, "bench", "agents")
	gws := []struct {
		name string
		p    **harness.Process
		env  []string
	}{
		{"agentgw", &s.gw, nil},
		{"agentgw-warn", &s.gwWarn, []string{"AGENTGW_LOG_LEVEL=warn", "AGENTGW_METRICS=false"}},
		{"agentgw-h2c", &s.gwH2C, []string{"AGENTGW_CONFIG=" + idleCfg}},
	}
	if pgStore != "" {
		gws = append(gws, struct {
			name string
			p    **harness.Process
			env  []string
		}{"agentgw-pg", &s.gwPG, []string{"AGENTGW_STORE_URL=" + pgStore}})
	}
	if usage {
		usageCfg := filepath.Join(ps.Dir, "usage.yaml")
		if err := os.WriteFile(usageCfg, []byte(usageConfig), 0o644); err != nil {
			return nil, fmt.Errorf("writing the usage gateway config: %w", err)
		}
		gws = append(gws, struct {
			name string
			p    **harness.Process
			env  []string
		}{"agentgw-usage", &s.gwUsage, []string{"AGENTGW_CONFIG=" + usageCfg, "AGENTGW_KEYS=true"}})
	}
	for _, g := range gws {
		if *g.p, err = startGateway(ctx, ps, g.name, bin("agentgw"), agents, upstream, g.env); err != nil {
			return nil, err
		}
	}
	if usage {
		if s.usageKey, err = createKey(ctx, bin("agentgw"), filepath.Join(ps.Dir, "agentgw-usage-data")); err != nil {
			return nil, err
		}
	}
	if governed {
		if s.gwGov, s.govKey, err = startGoverned(ctx, ps, bin("agentgw"), agents, upstream); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// createKey makes a stored key of team bench that may call every agent,
// in the store of the data directory data, with agentgw keys create, and
// returns its secret.
func createKey(ctx context.Context, bin, data string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, "keys", "create", "--team", "bench", "--agents", "*", "--data", data, "--json")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("agentgw keys create: %w", err)
	}
	var k struct{ Secret string }
	if err := json.Unmarshal(out, &k); err != nil || k.Secret == "" {
		return "", fmt.Errorf("agentgw keys create printed %q: %v", out, err)
	}
	return k.Secret, nil
}

// startGoverned starts the governed gateway with governedConfig, makes a
// key of team bench for every agent on its store (createKey), and returns
// the gateway and the key's secret.
func startGoverned(ctx context.Context, ps *harness.Set, bin, agents, upstream string) (*harness.Process, string, error) {
	const name = "agentgw-governed"
	cfg := filepath.Join(ps.Dir, "governed.yaml")
	if err := os.WriteFile(cfg, []byte(governedConfig), 0o644); err != nil {
		return nil, "", fmt.Errorf("writing the governed gateway config: %w", err)
	}
	p, err := startGateway(ctx, ps, name, bin, agents, upstream, []string{"AGENTGW_CONFIG=" + cfg})
	if err != nil {
		return nil, "", err
	}
	key, err := createKey(ctx, bin, filepath.Join(ps.Dir, name+"-data"))
	return p, key, err
}

// startGateway runs agentgw serve on free loopback ports, with env added to
// the harness's environment: without env, as a user starts it (its log
// format "auto" writes JSON to the log file, not a terminal).
func startGateway(ctx context.Context, ps *harness.Set, name, bin, agents, upstream string, env []string) (*harness.Process, error) {
	addr, err := harness.FreeAddr()
	if err != nil {
		return nil, err
	}
	debug, err := harness.FreeAddr()
	if err != nil {
		return nil, err
	}
	// A data directory of its own in the work directory: never the user's
	// state directory, and the gateway's default store (SQLite) as an
	// operator runs it.
	data := filepath.Join(ps.Dir, name+"-data")
	args := []string{"serve", "--addr", addr, "--agents", agents, "--upstream", upstream, "--debug-addr", debug, "--data", data}
	p, err := ps.Start(ctx, name, bin, args, env, addr, false)
	if err != nil {
		return nil, err
	}
	p.DebugAddr = debug
	return p, nil
}

// createPGDatabase creates a fresh database for the run on the PostgreSQL
// server at server (a postgres:// URL) with psql, named prefix_<unix ns>,
// and returns its URL and a function dropping it again.
func createPGDatabase(ctx context.Context, server, prefix string) (string, func(), error) {
	u, err := url.Parse(server)
	if err != nil {
		return "", nil, fmt.Errorf("-pg: %w", err)
	}
	name := fmt.Sprintf("%s_%d", prefix, time.Now().UnixNano())
	psql := func(ctx context.Context, sql string) error {
		out, err := exec.CommandContext(ctx, "psql", server, "-v", "ON_ERROR_STOP=1", "-qc", sql).CombinedOutput()
		if err != nil {
			return fmt.Errorf("psql %q: %w: %s", sql, err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	if err := psql(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, fmt.Errorf("creating the bench's database: %w", err)
	}
	u.Path = "/" + name
	drop := func() {
		// Not the run's context: it may be cancelled (Ctrl-C).
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := psql(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
		}
	}
	return u.String(), drop, nil
}
