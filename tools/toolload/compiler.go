package toolload

import (
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/tools"
)

// A *tools.Tool is what step kinds and the runner hold.
var _ stepkind.Tool = (*tools.Tool)(nil)

// Compiler compiles the tools agent definitions define with Manager: the
// tool compiler loading agents uses (program.LoadOptions.Tools). The tools
// it returns are *tools.Tool.
type Compiler struct {
	// Manager compiles the tools and runs them.
	Manager *tools.Manager
}

// Default is a compiler over a manager with default settings
// (tools.Config{}): no HTTP tools allowed, workdirs confined to the
// definition file's directory.
func Default() Compiler { return Compiler{Manager: tools.NewManager(tools.Config{})} }

// Compile implements program.ToolCompiler with Manager.Compile: the tool,
// its warnings, or an error naming the tool (and no tool).
func (c Compiler) Compile(spec toolspec.Spec, baseDir string) (stepkind.Tool, []string, error) {
	t, warns, err := c.Manager.Compile(spec, baseDir)
	if err != nil {
		return nil, warns, err
	}
	return t, warns, nil
}

// Shared are the tools LoadTools returned as the runner takes them
// (program.LoadOptions.Shared), the same tools by the same names.
func Shared(ts map[string]*tools.Tool) map[string]stepkind.Tool {
	if ts == nil {
		return nil
	}
	out := make(map[string]stepkind.Tool, len(ts))
	for name, t := range ts {
		out[name] = t
	}
	return out
}
