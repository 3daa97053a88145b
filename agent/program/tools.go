package program

import (
	"fmt"
	"maps"
	"os"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/internal/suggest"
)

// compileTools compiles the agent's tools over the shared ones.
func (c *compiler) compileTools() {
	c.tools = maps.Clone(c.opts.Shared)
	if c.tools == nil {
		c.tools = map[string]stepkind.Tool{}
	}
	own := map[string]bool{}
	for _, td := range c.def.Tools {
		if td == nil {
			continue
		}
		if own[td.Name] {
			c.errorf(td.Pos, "tool %q is defined twice", td.Name)
			continue
		}
		own[td.Name] = true
		if _, shared := c.opts.Shared[td.Name]; shared {
			c.warnf(td.Pos, "tool %q hides the gateway's shared tool of that name", td.Name)
		}
		if t := compileToolDef(c.opts.Tools, td, c.toolBase(), c.diags); t != nil {
			c.tools[td.Name] = t
		}
	}
}

// compileToolDef compiles one tool definition with tc, its relative paths
// resolving against base, reporting its warnings and error; nil on error
// (without tc, every tool definition is one).
func compileToolDef(tc ToolCompiler, td *agent.ToolDef, base string, diags *agent.Diagnostics) stepkind.Tool {
	if tc == nil {
		diags.Add(agent.SeverityError, td.Pos, fmt.Sprintf("tool %q: this loader compiles no tools (LoadOptions.Tools is unset)", td.Name))
		return nil
	}
	t, warns, err := tc.Compile(td.Spec, base)
	for _, w := range warns {
		diags.Add(agent.SeverityWarning, td.Pos, fmt.Sprintf("tool %q: %s", td.Name, w))
	}
	if err != nil {
		diags.Add(agent.SeverityError, td.Pos, err.Error()) // the error names the tool
		return nil
	}
	return t
}

// toolBase is where the agent's relative tool paths resolve.
func (c *compiler) toolBase() string {
	if c.baseDir != "" {
		return c.baseDir
	}
	wd, _ := os.Getwd()
	return wd
}

// resolveTools looks up the tools a command or step names.
func (c *compiler) resolveTools(where string, pos agent.Position, names []string) map[string]stepkind.Tool {
	if len(names) == 0 {
		return nil
	}
	out := map[string]stepkind.Tool{}
	for _, n := range names {
		t, ok := c.tools[n]
		if !ok {
			c.errorf(pos, "%s: no tool named %q%s", where, n, suggest.DidYouMean(n, sortedKeys(c.tools)))
			continue
		}
		out[n] = t
	}
	return out
}
