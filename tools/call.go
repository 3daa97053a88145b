package tools

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/observe"
)

// errToolTimeout is the cause of a context whose tool deadline passed.
var errToolTimeout = errors.New("tool timeout")

// Call runs the tool once: parameters validated first (INVALID_PARAMETERS,
// nothing runs), then the runtime under the tool's timeout. The Result is
// SUCCESS, TIMEOUT when the tool's own deadline passed, or ERROR (CANCELED
// when ctx ended first, the runtime's code, else TOOL_FAILED). Call never
// panics.
func (t *Tool) Call(ctx context.Context, call Call) (res toolspec.Result) {
	start := time.Now()
	res.CallID = call.ID
	ctx, observed := observe.From(ctx).Tool(ctx, observe.Tool{Name: t.Name, Runtime: t.Runtime, CallID: call.ID})
	defer func() {
		tr := observe.ToolResult{Status: res.Status}
		if res.Error != nil {
			tr.Code = res.Error.Code
		}
		observed(tr)
	}()
	defer func() {
		if r := recover(); r != nil {
			res.Status, res.Result = toolspec.StatusError, nil
			res.Error = errorf(toolspec.CodeToolFailed, "tool %s panicked: %v", t.Name, r)
		}
		res.ExecutionTime = time.Since(start).Milliseconds()
		t.m.log.LogAttrs(ctx, slog.LevelDebug, "tool call", slog.String("tool", t.Name),
			slog.String("callId", call.ID), slog.String("status", res.Status),
			slog.Int64("ms", res.ExecutionTime))
	}()
	if err := t.Validate(call.Parameters); err != nil {
		return failed(res, toolspec.StatusError, errorf(toolspec.CodeInvalidParameters, "%s", err.Error()))
	}
	if call.Parameters == nil {
		call.Parameters = map[string]any{}
	}
	if ctx.Err() != nil {
		return failed(res, toolspec.StatusError, errorf(toolspec.CodeCanceled, "call canceled before it started: %v", context.Cause(ctx)))
	}
	runCtx, cancel := context.WithTimeoutCause(ctx, t.Timeout, errToolTimeout)
	defer cancel()
	t.begin()
	defer t.end()
	v, err := t.rt.Run(runCtx, t, call)
	if err == nil {
		res.Status, res.Result = toolspec.StatusSuccess, v
		return res
	}
	return t.shapeError(ctx, runCtx, res, err)
}

// shapeError classifies a runtime error: the caller's cancellation, the
// tool's own deadline, a coded *ResultError, or TOOL_FAILED.
func (t *Tool) shapeError(ctx, runCtx context.Context, res toolspec.Result, err error) toolspec.Result {
	switch {
	case ctx.Err() != nil:
		return failed(res, toolspec.StatusError, errorf(toolspec.CodeCanceled, "call canceled: %v", context.Cause(ctx)))
	case errors.Is(context.Cause(runCtx), errToolTimeout):
		return failed(res, toolspec.StatusTimeout, errorf(toolspec.CodeTimeout, "tool %s timed out after %s", t.Name, t.Timeout))
	}
	var re *toolspec.ResultError
	if errors.As(err, &re) {
		return failed(res, toolspec.StatusError, &toolspec.ResultError{Code: re.Code, Message: re.Message})
	}
	return failed(res, toolspec.StatusError, &toolspec.ResultError{Code: toolspec.CodeToolFailed, Message: err.Error()})
}

// failed sets res to a failure.
func failed(res toolspec.Result, status string, e *toolspec.ResultError) toolspec.Result {
	res.Status, res.Result, res.Error = status, nil, e
	return res
}
