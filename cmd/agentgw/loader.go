package main

import (
	"log/slog"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/configs"
	"github.com/agentgw/agentgw/gitrepo"
	"github.com/agentgw/agentgw/mcp"
	"github.com/agentgw/agentgw/tools"
)

// loader reads the agent definitions and shared tools the configuration
// names, or the embedded examples.
type loader struct {
	paths     []string
	toolFiles []string
	tools     *tools.Manager
}

// newLoader builds the tool manager from the configuration; repos (nil
// when none) backs the git.* builtin tools, pool the mcp tools.
func newLoader(cfg *Config, getenv func(string) string, repos *gitrepo.Manager, pool *mcp.Pool, log *slog.Logger) *loader {
	tm := tools.NewManager(tools.Config{
		WorkRoots: cfg.Tools.WorkRoots, HTTPAllow: cfg.Tools.HTTPAllow, Python: cfg.Tools.Python, Node: cfg.Tools.Node,
		Getenv: getenv, Builtins: agent.GitBuiltins(repos), Logger: log,
	})
	registerRuntimes(tm, pool)
	return &loader{paths: cfg.Agents, toolFiles: cfg.Tools.Files, tools: tm}
}

// agentSet is what one read made: the agents and the shared tools (every
// agent's tools include them, but a set may have no agent).
type agentSet struct {
	agents []*agent.Agent
	shared map[string]*tools.Tool
}

// read loads the shared tools, then the agents with them.
func (l *loader) read() (agentSet, agent.Diagnostics) {
	shared, diags := agent.LoadTools(l.tools, l.toolFiles...)
	opts := agent.LoadOptions{Tools: l.tools, Shared: shared}
	var agents []*agent.Agent
	var ds agent.Diagnostics
	if len(l.paths) == 0 {
		agents, ds = agent.LoadFSWith(opts, configs.FS, configs.AgentsDir)
	} else {
		agents, ds = agent.LoadWith(opts, l.paths...)
	}
	return agentSet{agents: agents, shared: shared}, append(diags, ds...)
}

// load is read, logging every problem; bad files are skipped.
func (l *loader) load(log *slog.Logger) agentSet {
	set, diags := l.read()
	for _, d := range diags {
		if d.Severity == agent.SeverityError {
			log.Error("agent definition", "problem", d.String())
		} else {
			log.Warn("agent definition", "problem", d.String())
		}
	}
	return set
}

// close closes the set's tools, each once though agents share some: each
// is released as soon as no call to it is in flight (tools.Tool.Close).
func (s agentSet) close(log *slog.Logger) {
	closed := map[*tools.Tool]bool{}
	closeTool := func(t *tools.Tool) {
		if closed[t] {
			return
		}
		closed[t] = true
		if err := t.Close(); err != nil {
			log.Warn("closing a replaced tool", "tool", t.Name, "error", err)
		}
	}
	for _, t := range s.shared {
		closeTool(t)
	}
	for _, a := range s.agents {
		for _, t := range a.Tools() {
			closeTool(t)
		}
	}
}
