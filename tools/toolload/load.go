package toolload

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/tools"
)

// LoadTools reads shared tool files: each a YAML list of tools (see
// tools.Spec), their relative paths resolving against the file's directory.
// A tool with errors is reported and skipped.
func LoadTools(m *tools.Manager, paths ...string) (map[string]*tools.Tool, agent.Diagnostics) {
	out := map[string]*tools.Tool{}
	var diags agent.Diagnostics
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			diags.Add(agent.SeverityError, agent.Position{File: p}, fmt.Sprintf("reading tools: %v", err))
			continue
		}
		var defs []*agent.ToolDef
		if err := (&agent.NodeDecoder{File: p, Diags: &diags}).DecodeYAML(data, &defs, "tools"); err != nil {
			diags.Add(agent.SeverityError, agent.YAMLErrorPos(p, data, err), agent.YAMLErrorMessage(err))
			continue
		}
		for _, td := range defs {
			if td == nil {
				continue
			}
			if _, dup := out[td.Name]; dup {
				diags.Add(agent.SeverityError, td.Pos, fmt.Sprintf("tool %q is defined twice", td.Name))
				continue
			}
			if t := compileToolDef(m, td, filepath.Dir(p), &diags); t != nil {
				out[td.Name] = t
			}
		}
	}
	diags.Sort()
	return out, diags
}

// compileToolDef compiles one tool definition with its relative paths
// resolving against base, reporting its warnings and error; nil on error.
func compileToolDef(m *tools.Manager, td *agent.ToolDef, base string, diags *agent.Diagnostics) *tools.Tool {
	t, warns, err := m.Compile(td.Spec, base)
	for _, w := range warns {
		diags.Add(agent.SeverityWarning, td.Pos, fmt.Sprintf("tool %q: %s", td.Name, w))
	}
	if err != nil {
		diags.Add(agent.SeverityError, td.Pos, err.Error()) // the error names the tool
		return nil
	}
	return t
}
