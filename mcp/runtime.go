package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/url"

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

// Check implements tools.Runtime: the entry must be a URL or a command
// line that splits.
func (r *Runtime) Check(t *tools.Tool) ([]string, error) {
	if t.Entry == "" {
		return nil, errors.New("entry: an mcp tool needs the server's command line or URL")
	}
	if u, err := url.Parse(t.Entry); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		return nil, nil
	}
	if _, err := SplitArgs(t.Entry); err != nil {
		return nil, fmt.Errorf("entry: %w", err)
	}
	return nil, nil
}

// Run implements tools.Runtime.
func (r *Runtime) Run(ctx context.Context, t *tools.Tool, call tools.Call) (any, error) {
	name := t.Remote
	if name == "" {
		name = t.Name
	}
	res, err := r.Pool.Call(ctx, t.Entry, t.Environ(), name, call.Parameters)
	var te *ToolError
	if errors.As(err, &te) {
		return nil, &tools.ResultError{Code: tools.CodeToolFailed, Message: te.Text}
	}
	return res, err
}

// Export offers a tool to MCP clients.
func Export(t *tools.Tool) ExportedTool {
	return ExportedTool{Name: t.Name, Description: t.Description, InputSchema: t.ParametersSchema(),
		Call: func(ctx context.Context, args map[string]any) (any, bool, error) {
			r := t.Call(ctx, tools.Call{ID: "mcp", Parameters: args})
			if r.Status == tools.StatusSuccess {
				return r.Result, false, nil
			}
			msg := r.Status
			if r.Error != nil {
				msg = r.Error.Code + ": " + r.Error.Message
			}
			return msg, true, nil
		}}
}
