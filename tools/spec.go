package tools

import (
	"fmt"
	"time"

	"github.com/agentgw/agentgw/agent/toolspec"
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

// Call is one invocation of a tool (toolspec.Call).
type Call = toolspec.Call

// errorf builds a *ResultError with a formatted message.
func errorf(code, format string, args ...any) *toolspec.ResultError {
	return &toolspec.ResultError{Code: code, Message: fmt.Sprintf(format, args...)}
}
