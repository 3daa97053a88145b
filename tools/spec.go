package tools

import (
	"fmt"
	"time"
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

// Spec is a tool as an operator writes it: YAML inside an agent definition or
// in shared tool files.
type Spec struct {
	// Name is what the model calls: [A-Za-z0-9_-]{1,64}.
	Name string `yaml:"name" json:"name"`
	// Description tells the model what the tool does.
	Description string `yaml:"description" json:"description,omitempty"`
	// Parameters is a JSON Schema for the parameters object; nil means {"type":"object"}.
	Parameters map[string]any `yaml:"parameters" json:"parameters,omitempty"`
	// Runtime is python, javascript, native, wasm, http, mcp, builtin or frontend.
	Runtime string `yaml:"runtime" json:"runtime"`
	// Entry is the script, binary, .wasm file, URL, MCP server command line or
	// URL, or builtin name; frontend tools leave it empty.
	Entry string `yaml:"entry" json:"entry,omitempty"`
	// Command is passed to stdio, wasm and native tools; "" means Name.
	Command string `yaml:"command" json:"command,omitempty"`
	// Args are extra argv entries after the entry (native, python, javascript, wasm).
	Args []string `yaml:"args" json:"args,omitempty"`
	// Env is the environment allow-list: NAME (taken from the gateway's
	// environment) or NAME=value. Nothing else of the gateway's environment
	// reaches the tool.
	Env []string `yaml:"env" json:"env,omitempty"`
	// Workdir is relative to the tool's base directory and must stay inside
	// the manager's WorkRoots.
	Workdir string `yaml:"workdir" json:"workdir,omitempty"`
	// Timeout bounds one call; 0 means DefaultTimeout.
	Timeout time.Duration `yaml:"timeout" json:"timeout,omitempty"`
	// MaxOutputBytes caps stdout or the HTTP response body; 0 means DefaultMaxOutputBytes.
	MaxOutputBytes int `yaml:"maxOutputBytes" json:"maxOutputBytes,omitempty"`
	// PermissionLevel is AUTO (the default) or USER_CONSENT.
	PermissionLevel string `yaml:"permissionLevel" json:"permissionLevel,omitempty"`
	// Export offers the tool to MCP clients on the gateway's /mcp endpoint.
	Export bool `yaml:"export" json:"export,omitempty"`
	// Remote is an mcp tool's name on its server; "" means Name.
	Remote string `yaml:"remote" json:"remote,omitempty"`
	// MemoryMiB is a wasm tool's memory limit; 0 means DefaultMemoryMiB.
	MemoryMiB int `yaml:"memoryMiB" json:"memoryMiB,omitempty"`
	// Mounts are host directories granted read-only to a wasm module, each
	// "hostdir" (mounted at the same path) or "hostdir:guestdir".
	Mounts []string `yaml:"mounts" json:"mounts,omitempty"`
	// UserPrompt is what to ask the user (frontend tools and consent); the
	// caller renders any template in it.
	UserPrompt string `yaml:"userPrompt" json:"userPrompt,omitempty"`
	// FallbackBehavior is a frontend tool's ABORT, SKIP or USE_ALTERNATIVE.
	FallbackBehavior string `yaml:"fallbackBehavior" json:"fallbackBehavior,omitempty"`
}

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
