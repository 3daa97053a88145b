package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/tools"
)

// Runtime runs tools of runtime "mcp": the tool Remote (or Name) of the MCP
// server its entry names, a command line (stdio) or an http(s) URL.
type Runtime struct {
	Pool *Pool
}

var _ tools.Runtime = (*Runtime)(nil)

// Name implements tools.Runtime.
func (r *Runtime) Name() string { return "mcp" }

// Check implements tools.Runtime: the entry must be an http(s) URL with a
// host or a command line that splits, as Dial parses it. (A missing entry
// is the tools package's error.)
func (r *Runtime) Check(t *tools.Tool) ([]string, error) {
	if _, err := parseEntry(t.Entry); err != nil {
		return nil, fmt.Errorf("entry: %w", err)
	}
	return nil, nil
}

// Run implements tools.Runtime. Compile fills Remote with the tool's name
// when the spec gives none.
func (r *Runtime) Run(ctx context.Context, t *tools.Tool, call tools.Call) (any, error) {
	res, err := r.Pool.Call(ctx, t.Entry, t.Environ(), t.Remote, call.Parameters)
	var te *ToolError
	if errors.As(err, &te) {
		return nil, &toolspec.ResultError{Code: toolspec.CodeToolFailed, Message: te.Text}
	}
	return res, err
}

// Export offers a tool to MCP clients.
func Export(t *tools.Tool) ExportedTool {
	return ExportedTool{Name: t.Name, Description: t.Description, InputSchema: t.ParametersSchema(),
		Call: func(ctx context.Context, args map[string]any) (any, bool, error) {
			r := t.Call(ctx, tools.Call{ID: "mcp", Parameters: args})
			if r.Status == toolspec.StatusSuccess {
				return r.Result, false, nil
			}
			msg := r.Status
			if r.Error != nil {
				msg = r.Error.Code + ": " + r.Error.Message
			}
			return msg, true, nil
		}}
}
