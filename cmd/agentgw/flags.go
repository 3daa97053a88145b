package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/agentgw/agentgw/echomodel"
)

// gatewayFlag is a set of the flags that override the gateway
// configuration: each command defines those it uses (--config always), so
// that its help lists no flag it ignores.
type gatewayFlag uint

const (
	// withAgents is --agents.
	withAgents gatewayFlag = 1 << iota
	// withAddr is --addr.
	withAddr
	// withUpstream is --upstream.
	withUpstream
	// withData is --data.
	withData
	// withServer is --debug-addr, --read-header-timeout and
	// --body-read-timeout.
	withServer
	// allGatewayFlags are serve's.
	allGatewayFlags = withAgents | withAddr | withUpstream | withData | withServer
)

// gatewayFlags are the flags that override the gateway configuration.
type gatewayFlags struct {
	config   string
	addr     string
	agents   []string
	upstream string
	debug    string
	data     string
	// readHeader and readBody bound reading a request's headers and body.
	readHeader time.Duration
	readBody   time.Duration
	fs         *pflag.FlagSet
}

// newGatewayFlags defines --config and the flags of which on fs.
func newGatewayFlags(fs *pflag.FlagSet, which gatewayFlag) *gatewayFlags {
	g := &gatewayFlags{fs: fs}
	fs.StringVar(&g.config, "config", "", "gateway config `FILE` (env AGENTGW_CONFIG)")
	if which&withAddr != 0 {
		fs.StringVar(&g.addr, "addr", "", "listen `address` (env AGENTGW_ADDR, default 127.0.0.1:18080, or :18080 with inbound auth)")
	}
	if which&withAgents != 0 {
		fs.StringArrayVar(&g.agents, "agents", nil, "agent definition `DIR` or file; repeatable (env AGENTGW_AGENTS, a path list); default: the embedded examples")
	}
	if which&withUpstream != 0 {
		fs.StringVar(&g.upstream, "upstream", "", "model platform base `URL`; /chat/completions is appended (env AGENTGW_UPSTREAM_URL)")
	}
	if which&withServer != 0 {
		fs.StringVar(&g.debug, "debug-addr", "", "serve pprof and expvar on this separate `address`, e.g. 127.0.0.1:6060 (env AGENTGW_DEBUG_ADDR)")
	}
	if which&withData != 0 {
		fs.StringVar(&g.data, "data", "", "data `DIR`: the store is the SQLite file agentgw.db in it (env AGENTGW_DATA, default the user's state directory, e.g. ~/.local/state/agentgw)")
	}
	if which&withServer != 0 {
		fs.DurationVar(&g.readHeader, "read-header-timeout", 0, "bound on reading a request's headers (env AGENTGW_READ_HEADER_TIMEOUT, default 10s)")
		fs.DurationVar(&g.readBody, "body-read-timeout", 0, "bound on reading a request's body, not its stream (env AGENTGW_BODY_READ_TIMEOUT, default 30s)")
	}
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
	// The flags given on the command line override the rest (Changed is
	// false for a flag the command does not define).
	set := g.fs.Changed
	if set("addr") {
		cfg.Addr = g.addr
	}
	if set("agents") {
		cfg.Agents = g.agents
	}
	if set("upstream") {
		cfg.Upstream.URL = g.upstream
	}
	if set("debug-addr") {
		cfg.DebugAddr = g.debug
	}
	if set("data") {
		cfg.Data = g.data
	}
	if set("read-header-timeout") {
		cfg.Server.ReadHeaderTimeout = Duration(g.readHeader)
	}
	if set("body-read-timeout") {
		cfg.Server.BodyReadTimeout = Duration(g.readBody)
	}
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
