package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentgw/agentgw/tools"
)

// Error codes of frontend tool results (seed 000 section 4.5.4; the codes
// are chat's own; results are tools.Result, the protocol's shape).
const (
	codeUnknownTool = "UNKNOWN_TOOL"
	codeInvalid     = "INVALID_PARAMETERS"
	codeDeclined    = "DECLINED"
	codeBinary      = "BINARY_FILE"
	codeNotFound    = "NOT_FOUND"
	codeOutside     = "OUTSIDE_WORKSPACE"
	codeNotFile     = "NOT_A_FILE"
	codeNotDir      = "NOT_A_DIRECTORY"
	codeIO          = "IO_ERROR"
	codeTimeout     = "TIMEOUT"
	codeNoWorkspace = "WORKSPACE_UNAVAILABLE"
)

// toolTimeout bounds one local tool run.
const toolTimeout = 30 * time.Second

// wireToolCall is a copilot_tool_call frame as received.
type wireToolCall struct {
	CallID           string          `json:"callId"`
	Name             string          `json:"name"`
	Parameters       json.RawMessage `json:"parameters"`
	UserPrompt       string          `json:"userPrompt"`
	FallbackBehavior string          `json:"fallbackBehavior"`
}

// failedResult is an ERROR result for call with code and message.
func failedResult(call wireToolCall, code, message string) tools.Result {
	return tools.Result{CallID: call.CallID, Status: tools.StatusError, Error: &tools.ResultError{Code: code, Message: message}}
}

func invalidParams(format string, args ...any) *tools.ResultError {
	return &tools.ResultError{Code: codeInvalid, Message: fmt.Sprintf(format, args...)}
}

// toolbox runs the frontend tools chat offers, over the workspace --dir.
type toolbox struct {
	dir string
	// root is --dir resolved on first use; rootErr why it could not be.
	root    *toolRoot
	rootErr error
	now     func() time.Time
	timeout time.Duration
}

// newToolbox runs tools over dir, timing them with the wall clock.
func newToolbox(dir string) *toolbox {
	return &toolbox{dir: dir, now: time.Now, timeout: toolTimeout}
}

// toolNames are the tools chat runs, for messages.
const toolNames = "read_file, list_files and search_text"

// knownTool reports whether chat has a tool named name.
func knownTool(name string) bool {
	switch name {
	case "read_file", "list_files", "search_text":
		return true
	}
	return false
}

// run runs call and times it. A canceled ctx leaves a result the caller
// does not send.
func (tb *toolbox) run(ctx context.Context, call wireToolCall) tools.Result {
	start := tb.now()
	res := tools.Result{CallID: call.CallID, Status: tools.StatusSuccess}
	tctx, cancel := context.WithTimeout(ctx, tb.timeout)
	defer cancel()
	value, fail := tb.dispatch(tctx, call)
	switch {
	case errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		res.Status, res.Error = tools.StatusTimeout, &tools.ResultError{Code: codeTimeout,
			Message: fmt.Sprintf("%s did not finish within %s", call.Name, tb.timeout)}
	case fail != nil:
		res.Status, res.Error = tools.StatusError, fail
	default:
		res.Result = value
	}
	res.ExecutionTime = tb.now().Sub(start).Milliseconds()
	return res
}

// dispatch runs the tool call names.
func (tb *toolbox) dispatch(ctx context.Context, call wireToolCall) (any, *tools.ResultError) {
	if !knownTool(call.Name) {
		return nil, &tools.ResultError{Code: codeUnknownTool, Message: fmt.Sprintf("chat has no tool named %q; it runs %s", call.Name, toolNames)}
	}
	if tb.root == nil && tb.rootErr == nil {
		tb.root, tb.rootErr = newToolRoot(tb.dir)
	}
	if tb.rootErr != nil {
		return nil, &tools.ResultError{Code: codeNoWorkspace, Message: tb.rootErr.Error()}
	}
	switch call.Name {
	case "read_file":
		return tb.root.readFile(ctx, call.Parameters)
	case "list_files":
		return tb.root.listFiles(ctx, call.Parameters)
	default:
		return tb.root.searchText(ctx, call.Parameters)
	}
}

// decodeParams decodes a call's parameters (absent or null: none) into v.
func decodeParams(raw json.RawMessage, v any) *tools.ResultError {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return invalidParams("parameters: %v", err)
	}
	return nil
}

// maxParam checks an optional positive limit: def when absent, at most hi.
func maxParam(name string, v *int, def, hi int) (int, *tools.ResultError) {
	switch {
	case v == nil:
		return def, nil
	case *v < 1:
		return 0, invalidParams("%s must be at least 1, not %d", name, *v)
	}
	return min(*v, hi), nil
}
