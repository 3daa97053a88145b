package tools

import (
	"fmt"
	"time"

	"github.com/agentgw/agentgw/tools/toolspec"
)

// Permission levels (seed protocol section 4.5).
const (
	// PermissionAuto lets the agent call the tool without asking.
	PermissionAuto = "AUTO"
	// PermissionUserConsent asks the user before each call.
	PermissionUserConsent = "USER_CONSENT"
)

// Result statuses.
const (
	// StatusSuccess marks a call that produced a result.
	StatusSuccess = "SUCCESS"
	// StatusError marks a call that failed; Result.Error says why.
	StatusError = "ERROR"
	// StatusTimeout marks a call stopped at the tool's own deadline.
	StatusTimeout = "TIMEOUT"
)

// Error codes carried by ResultError.
const (
	// CodeInvalidParameters: the parameters do not match the tool's schema; nothing ran.
	CodeInvalidParameters = "INVALID_PARAMETERS"
	// CodeToolFailed: the tool ran and failed (non-zero exit, HTTP error, builtin error).
	CodeToolFailed = "TOOL_FAILED"
	// CodeTimeout: the tool's deadline passed and it was stopped.
	CodeTimeout = "TIMEOUT"
	// CodeOutputTooLarge: a JSON result was cut at the output cap and cannot be used.
	CodeOutputTooLarge = "OUTPUT_TOO_LARGE"
	// CodeNotAllowed: the call would leave what the configuration allows (an HTTP redirect off the allow-list).
	CodeNotAllowed = "NOT_ALLOWED"
	// CodeUnavailable: the tool cannot run here (missing interpreter or entry, frontend tool, unreachable server).
	CodeUnavailable = "UNAVAILABLE"
	// CodeCanceled: the caller went away before the tool finished.
	CodeCanceled = "CANCELED"
	// CodeUnknownTool: the model called a tool that is not (or no longer) defined; nothing ran.
	CodeUnknownTool = "UNKNOWN_TOOL"
	// CodeDeclined: the user declined to let the tool run; nothing ran.
	CodeDeclined = "DECLINED"
)

// Fallback behaviours of frontend tools.
const (
	// FallbackAbort stops the run when the frontend tool cannot execute.
	FallbackAbort = "ABORT"
	// FallbackSkip continues without the tool's result.
	FallbackSkip = "SKIP"
	// FallbackUseAlternative lets the agent pick another tool.
	FallbackUseAlternative = "USE_ALTERNATIVE"
)

// Defaults applied by Compile.
const (
	// DefaultTimeout is a tool's timeout when its spec gives none.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxOutputBytes caps a tool's output when its spec gives no cap.
	DefaultMaxOutputBytes = 1 << 20
	// DefaultMemoryMiB is a wasm tool's memory limit when its spec gives none.
	DefaultMemoryMiB = 64
)

// Spec is a tool as an operator writes it (toolspec.Spec, kept in a package
// of its own so that agent definitions can hold it without the runtimes).
type Spec = toolspec.Spec

// Call is one invocation of a tool.
type Call struct {
	// ID is the callId that the Result echoes.
	ID string
	// Parameters are the JSON-decoded arguments; nil means {}.
	Parameters map[string]any
}

// Result is the outcome of a call in the protocol's shape (seed section 4.4).
type Result struct {
	CallID        string       `json:"callId"`
	Status        string       `json:"status"`
	Result        any          `json:"result,omitempty"`
	Error         *ResultError `json:"error,omitempty"`
	ExecutionTime int64        `json:"executionTime"` // milliseconds
}

// ResultError says why a call failed. It is also an error, so a Runtime may
// return one from Run to choose the code (TOOL_FAILED otherwise).
type ResultError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Error implements error.
func (e *ResultError) Error() string { return e.Code + ": " + e.Message }

// errorf builds a *ResultError with a formatted message.
func errorf(code, format string, args ...any) *ResultError {
	return &ResultError{Code: code, Message: fmt.Sprintf(format, args...)}
}
