package main

import (
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/mcp"
	"github.com/agentgw/agentgw/tools"
)

// registerRuntimes adds the runtimes that live outside the tools package:
// mcp, over a pool of MCP client connections.
func registerRuntimes(tm *tools.Manager, pool *mcp.Pool) {
	tm.Register(&mcp.Runtime{Pool: pool})
}

// exportedTools returns the function /mcp lists its tools with at each MCP
// request: the tools marked export of the registry's agents, their own
// and the shared ones, a name offered once (agents in name order). A tool
// that needs the user's consent (USER_CONSENT) is never offered: an MCP
// client has no user to ask, and calling it over /mcp would skip the
// consent a plugin's user gives.
func exportedTools(reg *program.Registry) func() []mcp.ExportedTool {
	return func() []mcp.ExportedTool {
		var out []mcp.ExportedTool
		seen := map[string]bool{}
		for _, a := range reg.List() {
			for _, at := range a.Tools() {
				t, ok := at.(*tools.Tool) // toolload compiled it
				if ok && t.Export && t.PermissionLevel != toolspec.PermissionUserConsent && !seen[t.Name] {
					seen[t.Name] = true
					out = append(out, mcp.Export(t))
				}
			}
		}
		return out
	}
}
