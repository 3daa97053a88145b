package main

import (
	"context"

	"github.com/agentgw/agentgw/agent/dispatch"
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
// consent a plugin's user gives. A call comes from no run: what the tool
// runs on the gateway's agents (ask_agent) goes through local.
func exportedTools(reg *program.Registry, local dispatch.Local) func() []mcp.ExportedTool {
	return func() []mcp.ExportedTool {
		var out []mcp.ExportedTool
		seen := map[string]bool{}
		for _, a := range reg.List() {
			for _, at := range a.Tools() {
				t, ok := at.(*tools.Tool) // toolload compiled it
				if ok && t.Export && t.PermissionLevel != toolspec.PermissionUserConsent && !seen[t.Name] {
					seen[t.Name] = true
					out = append(out, fromNoRun(mcp.Export(t), local))
				}
			}
		}
		return out
	}
}

// fromNoRun is t called with local, the runner, in its context
// (dispatch.WithLocal): a call from no run reaches the gateway's agents
// through it, as a call from a run does through the run's runner.
func fromNoRun(t mcp.ExportedTool, local dispatch.Local) mcp.ExportedTool {
	call := t.Call
	t.Call = func(ctx context.Context, args map[string]any) (any, bool, error) {
		return call(dispatch.WithLocal(ctx, local), args)
	}
	return t
}
