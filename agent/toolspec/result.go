package toolspec

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

// Statuses a frontend tool's result may carry, besides SUCCESS, ERROR and TIMEOUT, to say that the IDE
// could not execute the tool at all (a protocol extension; the same as status ERROR with the same
// error code).
const (
	// StatusUnavailable: the IDE does not have the tool, or cannot run it now.
	StatusUnavailable = "UNAVAILABLE"
	// StatusNotSupported: the IDE does not support the tool (or its parameters).
	StatusNotSupported = "NOT_SUPPORTED"
	// StatusDeclined: the user did not let the tool run.
	StatusDeclined = "DECLINED"
)

// CodeNotSupported: the IDE does not support the frontend tool (or its parameters); nothing ran.
const CodeNotSupported = "NOT_SUPPORTED"

// FrontendStatus reports whether s is a status a frontend tool's result may carry: SUCCESS, ERROR,
// TIMEOUT, UNAVAILABLE, NOT_SUPPORTED or DECLINED.
func FrontendStatus(s string) bool {
	switch s {
	case StatusSuccess, StatusError, StatusTimeout, StatusUnavailable, StatusNotSupported, StatusDeclined:
		return true
	}
	return false
}

// CouldNotRun reports whether a frontend tool's result says the tool could not be executed (seed 000
// section 4.5.3: unavailable, not supported, declined, timed out), the case its fallbackBehavior governs:
// status TIMEOUT, UNAVAILABLE, NOT_SUPPORTED or DECLINED, or status ERROR with error code UNAVAILABLE,
// NOT_SUPPORTED, DECLINED, TIMEOUT or UNKNOWN_TOOL. Any other ERROR is a tool that ran and failed: its
// error goes to the model, as a backend tool's does.
func CouldNotRun(r Result) bool {
	switch r.Status {
	case StatusSuccess:
		return false
	case StatusTimeout, StatusUnavailable, StatusNotSupported, StatusDeclined:
		return true
	}
	if r.Error == nil {
		return false
	}
	switch r.Error.Code {
	case CodeUnavailable, CodeNotSupported, CodeDeclined, CodeTimeout, CodeUnknownTool:
		return true
	}
	return false
}
