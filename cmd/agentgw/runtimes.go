package main

import (
	"log/slog"
	"slices"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/mcp"
	"github.com/agentgw/agentgw/tools"
)

// registerRuntimes adds the runtimes that live outside the tools package:
// mcp, over a pool of MCP client connections.
func registerRuntimes(tm *tools.Manager, pool *mcp.Pool) {
	tm.Register(&mcp.Runtime{Pool: pool})
}

// mcpHandler serves the tools marked export on /mcp: every agent's, and
// the shared ones; a name offered twice is offered once.
func mcpHandler(reg *agent.Registry, log *slog.Logger) *mcpServer {
	return &mcpServer{reg: reg, log: log}
}

type mcpServer struct {
	reg *agent.Registry
	log *slog.Logger
}

// exported lists the tools to offer, at the time of each MCP request.
func (m *mcpServer) exported() []mcp.ExportedTool {
	var out []mcp.ExportedTool
	var seen []string
	for _, a := range m.reg.List() {
		for _, t := range a.Tools() {
			if t.Export && !slices.Contains(seen, t.Name) {
				seen = append(seen, t.Name)
				out = append(out, mcp.Export(t))
			}
		}
	}
	return out
}
