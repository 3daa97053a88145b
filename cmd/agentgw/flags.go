package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agentgw/agentgw/echomodel"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }

// Set appends a value.
func (s *stringList) Set(v string) error {
	*s = append(*s, v)
	return nil
}

// gatewayFlags are the flags that override the gateway configuration.
type gatewayFlags struct {
	config   string
	addr     string
	agents   stringList
	upstream string
	debug    string
	data     string
	// readHeader and readBody bound reading a request's headers and body.
	readHeader time.Duration
	readBody   time.Duration
	fs         *flag.FlagSet
}

func newGatewayFlags(name string, stderr io.Writer) *gatewayFlags {
	g := &gatewayFlags{fs: flag.NewFlagSet(name, flag.ContinueOnError)}
	g.fs.SetOutput(stderr)
	g.fs.StringVar(&g.config, "config", "", "gateway config `FILE` (env AGENTGW_CONFIG)")
	g.fs.StringVar(&g.addr, "addr", "", "listen `address` (env AGENTGW_ADDR, default 127.0.0.1:18080, or :18080 with inbound auth)")
	g.fs.Var(&g.agents, "agents", "agent definition `DIR` or file; repeatable (env AGENTGW_AGENTS, a path list); default: the embedded examples")
	g.fs.StringVar(&g.upstream, "upstream", "", "model platform base `URL`; /chat/completions is appended (env AGENTGW_UPSTREAM_URL)")
	g.fs.StringVar(&g.debug, "debug-addr", "", "serve pprof and expvar on this separate `address`, e.g. 127.0.0.1:6060 (env AGENTGW_DEBUG_ADDR)")
	g.fs.StringVar(&g.data, "data", "", "data `DIR`: the store is the SQLite file agentgw.db in it (env AGENTGW_DATA, default the user's state directory, e.g. ~/.local/state/agentgw)")
	g.fs.DurationVar(&g.readHeader, "read-header-timeout", 0, "bound on reading a request's headers (env AGENTGW_READ_HEADER_TIMEOUT, default 10s)")
	g.fs.DurationVar(&g.readBody, "body-read-timeout", 0, "bound on reading a request's body, not its stream (env AGENTGW_BODY_READ_TIMEOUT, default 30s)")
	return g
}

// load builds the configuration: embedded defaults, then the config file,
// then the environment, then the flags that were given. The embedded
// config's schedules (the example nightly-review) come only with the
// embedded config and agents: with a config file, its schedules are the
// file's alone; with agents of the operator's (--agents, AGENTGW_AGENTS),
// there are none from the embedded config. With no upstream
// URL from any of them, the upstream is the built-in model (echomodel.URL).
func (g *gatewayFlags) load(getenv func(string) string) (*Config, error) {
	cfg, err := defaultConfig()
	if err != nil {
		return nil, err
	}
	path := g.config
	if path == "" {
		path = getenv("AGENTGW_CONFIG")
	}
	if path != "" {
		// The embedded schedules are examples of the embedded config and
		// its example agents: an operator's file has its own or none.
		cfg.Schedules = nil
		if err := overlayFile(cfg, path); err != nil {
			return nil, err
		}
	}
	if err := envOverlay(cfg, getenv); err != nil {
		return nil, err
	}
	g.fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "addr":
			cfg.Addr = g.addr
		case "agents":
			cfg.Agents = g.agents
		case "upstream":
			cfg.Upstream.URL = g.upstream
		case "debug-addr":
			cfg.DebugAddr = g.debug
		case "data":
			cfg.Data = g.data
		case "read-header-timeout":
			cfg.Server.ReadHeaderTimeout = Duration(g.readHeader)
		case "body-read-timeout":
			cfg.Server.BodyReadTimeout = Duration(g.readBody)
		}
	})
	if path == "" && len(cfg.Agents) > 0 {
		// No config file, but agents of the operator's: the example
		// schedules name example agents that are not loaded.
		cfg.Schedules = nil
	}
	if cfg.Upstream.URL == "" {
		// No model platform named anywhere: the model inside the binary,
		// so that model commands stream a real answer (serve says so).
		cfg.Upstream.URL = echomodel.URL
		cfg.Upstream.builtinDefault = true
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("invalid configuration: %w", err)
	}
	return cfg, nil
}
