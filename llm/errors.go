package llm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrorKind classifies an upstream failure.
type ErrorKind int

const (
	// KindUnavailable is a connection failure before any response.
	KindUnavailable ErrorKind = iota + 1
	// KindStatus is an HTTP status >= 400 from the upstream.
	KindStatus
	// KindStream is an error object or event mid-stream, a malformed chunk
	// or a broken stream.
	KindStream
	// KindTimeout is the first-byte or idle timeout.
	KindTimeout
	// KindCanceled is the caller's context ending (the plugin went away) or
	// the sink failing to write to the client.
	KindCanceled
	// KindTruncated is a stream the upstream ended, without an error, after
	// some chunks but before the answer's end: no terminator ("[DONE]") and
	// no finish_reason in any chunk.
	KindTruncated
)

// String returns the kind's name.
func (k ErrorKind) String() string {
	switch k {
	case KindUnavailable:
		return "unavailable"
	case KindStatus:
		return "status"
	case KindStream:
		return "stream"
	case KindTimeout:
		return "timeout"
	case KindCanceled:
		return "canceled"
	case KindTruncated:
		return "truncated"
	}
	return fmt.Sprintf("ErrorKind(%d)", int(k))
}

// Error is an upstream failure. Message is the upstream's own message when
// it gave one, else a description; it holds no secret.
type Error struct {
	Kind ErrorKind
	// Status is the upstream HTTP status for KindStatus, else 0.
	Status  int
	Message string
	// Err is the underlying cause, if any.
	Err error
	// retryAfter is the wait the upstream asked for with Retry-After (or
	// retry-after-ms) on a status error, 0 when it asked for none.
	retryAfter time.Duration
}

// Error describes the failure.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("upstream ")
	b.WriteString(e.Kind.String())
	if e.Status != 0 {
		fmt.Fprintf(&b, " %d", e.Status)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.Err != nil && (e.Message == "" || !strings.Contains(e.Message, e.Err.Error())) {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// The protocol's error codes (docs/protocol.md §4) of upstream failures;
// the same strings as agent's codes, which llm does not import.
const (
	CodeUpstreamUnavailable = "UPSTREAM_UNAVAILABLE"
	CodeUpstreamTimeout     = "UPSTREAM_TIMEOUT"
	CodeUpstreamError       = "UPSTREAM_ERROR"
	CodeCanceled            = "CANCELED"
)

// Code returns the protocol's error code: CodeUpstreamUnavailable,
// CodeUpstreamError, CodeUpstreamTimeout, or CodeCanceled.
func (e *Error) Code() string {
	switch e.Kind {
	case KindUnavailable:
		return CodeUpstreamUnavailable
	case KindTimeout:
		return CodeUpstreamTimeout
	case KindCanceled:
		return CodeCanceled
	}
	return CodeUpstreamError
}

// Recoverable reports whether trying again may succeed: 429, 5xx,
// timeouts, unavailability and a truncated stream.
func (e *Error) Recoverable() bool {
	switch e.Kind {
	case KindUnavailable, KindTimeout, KindTruncated:
		return true
	case KindStatus:
		return e.Status == http.StatusTooManyRequests || e.Status >= 500
	}
	return false
}

// maxMessage caps the upstream message kept in an Error.
const maxMessage = 2048

// upstreamMessage extracts the message of an upstream error body: OpenAI's
// {"error":{"message"}}, {"error":"…"}, {"message"}, or the trimmed text.
// It is not cut to maxMessage: the client's redaction does that once it
// has removed the credentials, so that no cut leaves part of one.
func upstreamMessage(body []byte) string {
	var shape struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	msg := ""
	if json.Unmarshal(body, &shape) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		switch {
		case json.Unmarshal(shape.Error, &inner) == nil && inner.Message != "":
			msg = inner.Message
		case json.Unmarshal(shape.Error, &msg) == nil && msg != "":
		default:
			msg = shape.Message
		}
	}
	if msg == "" {
		msg = string(body)
	}
	return strings.TrimSpace(strings.ToValidUTF8(msg, "\uFFFD"))
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
