package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentgw/agentgw/agent/toolspec"
)

// Error codes of chat's frontend tool results (seed 000 section 4.5.4)
// that the tools package does not define; results are toolspec.Result, the
// protocol's shape, and use toolspec.CodeInvalidParameters and
// toolspec.CodeTimeout too.
const (
	codeUnknownTool = "UNKNOWN_TOOL"
	codeDeclined    = "DECLINED"
	codeBinary      = "BINARY_FILE"
	codeNotFound    = "NOT_FOUND"
	codeOutside     = "OUTSIDE_WORKSPACE"
	codeNotFile     = "NOT_A_FILE"
	codeNotDir      = "NOT_A_DIRECTORY"
	codeIO          = "IO_ERROR"
	// codeNoWorkspace: chat's workspace cannot be opened, so no tool can
	// run: UNAVAILABLE, which the gateway answers with the tool's
	// fallbackBehavior. Every other failure of a tool that ran (NOT_FOUND,
	// OUTSIDE_WORKSPACE, ...) goes to the model as the tool's error.
	codeNoWorkspace = toolspec.CodeUnavailable
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

// failedResult is the ERROR result of call that failed with e.
func failedResult(call wireToolCall, e *toolspec.ResultError) toolspec.Result {
	return toolspec.Result{CallID: call.CallID, Status: toolspec.StatusError, Error: e}
}

// invalidParams is an INVALID_PARAMETERS failure with a formatted message.
func invalidParams(format string, args ...any) *toolspec.ResultError {
	return &toolspec.ResultError{Code: toolspec.CodeInvalidParameters, Message: fmt.Sprintf(format, args...)}
}

// toolbox runs the frontend tools chat offers, over the workspace --dir.
type toolbox struct {
	// root is the workspace; rootErr says why it could not be resolved,
	// the failure of every call to a known tool.
	root    *toolRoot
	rootErr error
	now     func() time.Time
	timeout time.Duration
}

// newToolbox runs tools over dir, resolved now, timing them with the wall
// clock.
func newToolbox(dir string) *toolbox {
	root, err := newToolRoot(dir)
	return &toolbox{root: root, rootErr: err, now: time.Now, timeout: toolTimeout}
}

// chatTool is a tool chat runs over its workspace.
type chatTool struct {
	name string
	run  func(r *toolRoot, ctx context.Context, params []byte) (any, *toolspec.ResultError)
}

// chatTools are the tools chat runs, in the order messages name them.
var chatTools = []chatTool{
	{"read_file", (*toolRoot).readFile},
	{"list_files", (*toolRoot).listFiles},
	{"search_text", (*toolRoot).searchText},
}

// findTool returns chat's tool named name.
func findTool(name string) (chatTool, bool) {
	i := slices.IndexFunc(chatTools, func(t chatTool) bool { return t.name == name })
	if i < 0 {
		return chatTool{}, false
	}
	return chatTools[i], true
}

// toolNames names chat's tools for messages: "a, b and c".
func toolNames() string {
	names := make([]string, len(chatTools))
	for i, t := range chatTools {
		names[i] = t.name
	}
	last := len(names) - 1
	return strings.Join(names[:last], ", ") + " and " + names[last]
}

// run runs call and times it. A canceled ctx leaves a result the caller
// does not send.
func (tb *toolbox) run(ctx context.Context, call wireToolCall) toolspec.Result {
	start := tb.now()
	res := toolspec.Result{CallID: call.CallID, Status: toolspec.StatusSuccess}
	tctx, cancel := context.WithTimeout(ctx, tb.timeout)
	defer cancel()
	value, fail := tb.dispatch(tctx, call)
	switch {
	case errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		res.Status, res.Error = toolspec.StatusTimeout, &toolspec.ResultError{Code: toolspec.CodeTimeout,
			Message: fmt.Sprintf("%s did not finish within %s", call.Name, tb.timeout)}
	case fail != nil:
		res = failedResult(call, fail)
	default:
		res.Result = value
	}
	res.ExecutionTime = tb.now().Sub(start).Milliseconds()
	return res
}

// dispatch runs the tool call names.
func (tb *toolbox) dispatch(ctx context.Context, call wireToolCall) (any, *toolspec.ResultError) {
	tool, ok := findTool(call.Name)
	if !ok {
		return nil, &toolspec.ResultError{Code: codeUnknownTool, Message: fmt.Sprintf("chat has no tool named %q; it runs %s", call.Name, toolNames())}
	}
	if tb.rootErr != nil {
		return nil, &toolspec.ResultError{Code: codeNoWorkspace, Message: tb.rootErr.Error()}
	}
	return tool.run(tb.root, ctx, call.Parameters)
}

// decodeParams decodes a call's parameters (absent or null: none) into v.
func decodeParams(raw json.RawMessage, v any) *toolspec.ResultError {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return invalidParams("parameters: %v", err)
	}
	return nil
}

// maxParam checks an optional positive limit: def when absent, at most hi.
func maxParam(name string, v *int, def, hi int) (int, *toolspec.ResultError) {
	switch {
	case v == nil:
		return def, nil
	case *v < 1:
		return 0, invalidParams("%s must be at least 1, not %d", name, *v)
	}
	return min(*v, hi), nil
}
