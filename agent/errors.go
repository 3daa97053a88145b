package agent

import (
	"errors"
	"fmt"
	"net/http"
)

// Error codes of PROTOCOL.md section 5.
const (
	CodeBadRequest            = "BAD_REQUEST"
	CodeUnauthorized          = "UNAUTHORIZED"
	CodeAgentNotFound         = "AGENT_NOT_FOUND"
	CodeCommandNotFound       = "COMMAND_NOT_FOUND"
	CodePayloadTooLarge       = "PAYLOAD_TOO_LARGE"
	CodeUnsupportedMediaType  = "UNSUPPORTED_MEDIA_TYPE"
	CodeInvalidContext        = "INVALID_CONTEXT_VARIABLE"
	CodeStateInvalid          = "STATE_INVALID"
	CodeRateLimited           = "RATE_LIMITED"
	CodeInternal              = "INTERNAL"
	CodeNotFound              = "NOT_FOUND"
	CodeMethodNotAllowed      = "METHOD_NOT_ALLOWED"
	CodeUpstreamUnavailable   = "UPSTREAM_UNAVAILABLE"
	CodeUpstreamError         = "UPSTREAM_ERROR"
	CodeUpstreamTimeout       = "UPSTREAM_TIMEOUT"
	CodeUpstreamNotConfigured = "UPSTREAM_NOT_CONFIGURED"
	CodeTemplateError         = "TEMPLATE_ERROR"
	CodeActionInvalid         = "ACTION_INVALID"
	CodeCommandEmpty          = "COMMAND_EMPTY"
)

// Error sources of the seed-000 error shape.
const (
	SourceClient   = "client"
	SourceServer   = "server"
	SourceUpstream = "upstream"
)

// Error is the one error type that reaches a client: before the stream it is
// rendered as an ERROR_RESPONSE with Status, inside it as a copilot_error frame.
// Message is safe to show; Err, the cause, is only logged.
type Error struct {
	Code            string
	Status          int
	Message         string
	Source          string
	Recoverable     bool
	SuggestedAction string
	// UpstreamStatus is the upstream's HTTP status for UPSTREAM_ERROR.
	UpstreamStatus int
	Err            error
}

// Error implements error.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return e.Code + ": " + e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Suggest sets the suggested action and returns e.
func (e *Error) Suggest(action string) *Error {
	e.SuggestedAction = action
	return e
}

// Errorf builds a client-side error with the status that belongs to code.
// Each argument is clipped to MaxEcho bytes (clipArgs).
func Errorf(code, format string, args ...any) *Error {
	e := &Error{Code: code, Status: statusOf(code), Message: fmt.Sprintf(format, clipArgs(args)...), Source: SourceClient}
	if e.Status >= 500 {
		e.Source = SourceServer
	}
	e.Recoverable = code == CodeRateLimited
	return e
}

// Internal wraps an unexpected failure; its message says nothing internal.
func Internal(err error) *Error {
	return &Error{Code: CodeInternal, Status: http.StatusInternalServerError,
		Message: "internal error; the gateway logged the details under this request id",
		Source:  SourceServer, Err: err}
}

// AsError returns err as an *Error, wrapping anything else as INTERNAL.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Internal(err)
}

func statusOf(code string) int {
	switch code {
	case CodeBadRequest, CodeStateInvalid:
		return http.StatusBadRequest
	case CodeUnauthorized:
		return http.StatusUnauthorized
	case CodeAgentNotFound, CodeCommandNotFound, CodeNotFound:
		return http.StatusNotFound
	case CodeMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case CodePayloadTooLarge:
		return http.StatusRequestEntityTooLarge
	case CodeUnsupportedMediaType:
		return http.StatusUnsupportedMediaType
	case CodeInvalidContext:
		return http.StatusUnprocessableEntity
	case CodeRateLimited:
		return http.StatusTooManyRequests
	default:
		return http.StatusInternalServerError
	}
}
