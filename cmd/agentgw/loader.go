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

// read loads the shared tools, then the agents with them.
func (l *loader) read() ([]*agent.Agent, agent.Diagnostics) {
	shared, diags := agent.LoadTools(l.tools, l.toolFiles...)
	opts := agent.LoadOptions{Tools: l.tools, Shared: shared}
	var agents []*agent.Agent
	var ds agent.Diagnostics
	if len(l.paths) == 0 {
		agents, ds = agent.LoadFSWith(opts, configs.FS, configs.AgentsDir)
	} else {
		agents, ds = agent.LoadWith(opts, l.paths...)
	}
	return agents, append(diags, ds...)
}

// load is read, logging every problem; bad files are skipped.
func (l *loader) load(log *slog.Logger) []*agent.Agent {
	agents, diags := l.read()
	for _, d := range diags {
		if d.Severity == agent.SeverityError {
			log.Error("agent definition", "problem", d.String())
		} else {
			log.Warn("agent definition", "problem", d.String())
		}
	}
	return agents
}
