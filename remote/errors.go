package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/runes"
	"github.com/agentgw/agentgw/internal/watchdog"
	"github.com/agentgw/agentgw/llm"
)

// maxMessage caps the remote's message kept in an error, after redaction.
const maxMessage = 2048

// maxCode is the longest error code kept from a remote.
const maxCode = 64

// The suggested actions of the gateway's own mapping of remote failures.
const (
	suggestUnavailable = "try again later; the gateway's operator should check the agent's service.endpoint and that the remote agent service is up"
	suggestTimeout     = "try again; if it keeps happening the gateway's timeouts may be too short for the remote agent"
	suggestStatus      = "try again; if it keeps failing, the gateway's operator finds the remote agent service's answer in the log under this request id"
	suggestBroken      = "the remote agent service's author should check its stream against the agent protocol"
)

// call is what the error mapping of one call needs: the caller's
// context, the call's (canceled by the watchdog), and the redaction.
type call struct {
	ctx, call context.Context
	redact    *llm.Redactor
	// endpoint is the remote's URL as it may be shown (Redacted).
	endpoint string
}

// remoteError is an error of the remote: code with msg (made safe), from
// upstream, 502, with the code's default recoverability.
func (c *call) remoteError(code, msg string, recoverable bool) *apierr.Error {
	e := apierr.New(code, c.clean(msg)).From(apierr.SourceUpstream).WithStatus(http.StatusBadGateway)
	e.Recoverable = recoverable
	return e
}

// clean removes credentials from a message, then cuts it to maxMessage
// (in this order, so that no cut leaves part of a credential).
func (c *call) clean(msg string) string {
	return runes.Clip(c.redact.Redact(strings.ToValidUTF8(msg, "\uFFFD")), maxMessage)
}

// cleanCause is err with credentials removed from its text: the URL of a
// transport error is replaced by the redacted endpoint, and what remains
// redacted. It unwraps to err.
func (c *call) cleanCause(err error) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		text = strings.ReplaceAll(text, ue.URL, c.endpoint)
	}
	return &redactedError{text: c.clean(text), err: err}
}

// redactedError is a cause whose text had credentials removed; it still
// unwraps to the original error for errors.Is and errors.As.
type redactedError struct {
	text string
	err  error
}

func (e *redactedError) Error() string { return e.text }
func (e *redactedError) Unwrap() error { return e.err }

// fail maps an error of the call (connecting, reading) to the gateway's
// error: the caller's context ending is a quiet cancel, a watchdog timeout
// UPSTREAM_TIMEOUT, anything else code with msg.
func (c *call) fail(err error, code, msg string) *apierr.Error {
	if c.ctx.Err() != nil {
		return canceled(context.Cause(c.ctx))
	}
	var te *watchdog.TimeoutError
	if errors.As(context.Cause(c.call), &te) {
		return c.remoteError(apierr.CodeUpstreamTimeout, "the remote agent service at "+c.endpoint+" did not answer in time: "+te.Error(), true).
			Suggest(suggestTimeout).Wrap(c.cleanCause(err))
	}
	e := c.remoteError(code, msg, true).Wrap(c.cleanCause(err))
	if code == apierr.CodeUpstreamUnavailable {
		e.Suggest(suggestUnavailable)
	}
	return e
}

// canceled is the quiet end of a call whose caller went away.
func canceled(cause error) *apierr.Error {
	if cause == nil {
		cause = context.Canceled
	}
	var e *apierr.Error
	errors.As(apierr.Canceled(cause), &e)
	return e
}

// unavailable maps a failure to send the request (connection refused, DNS,
// TLS) or to get its response headers.
func (c *call) unavailable(err error) *apierr.Error {
	return c.fail(err, apierr.CodeUpstreamUnavailable, "the remote agent service at "+c.endpoint+" could not be reached")
}

// protocolError is an answer or stream that breaks the agent protocol.
func (c *call) protocolError(msg string) *apierr.Error {
	return c.remoteError(apierr.CodeUpstreamError, "the remote agent service at "+c.endpoint+" "+msg, false).Suggest(suggestBroken)
}

// wireError is the content of an ERROR_RESPONSE and the data of a
// copilot_error frame (docs/protocol.md §3 and §4).
type wireError struct {
	ErrorCode       string `json:"errorCode"`
	Message         string `json:"message"`
	Recoverable     *bool  `json:"recoverable"`
	SuggestedAction string `json:"suggestedAction"`
	RequestID       string `json:"requestId"`
	UpstreamStatus  int    `json:"upstreamStatus"`
	Details         struct {
		RequestID string `json:"requestId"`
	} `json:"details"`
}

// remoteCode is the code an error of the remote is shown with: the
// remote's own code when it is well formed (upper-case letters, digits and
// underscores, starting with a letter, at most 64 bytes), whether or not
// this gateway knows it, since the protocol's list is open and the
// plugin shows the message anyway; UPSTREAM_ERROR otherwise, and for
// CANCELED, which here means a quiet end without a frame.
func remoteCode(code string) string {
	if code == "" || len(code) > maxCode || code == apierr.CodeCanceled || code[0] < 'A' || code[0] > 'Z' {
		return apierr.CodeUpstreamError
	}
	for i := range len(code) {
		if c := code[i]; (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '_' {
			return apierr.CodeUpstreamError
		}
	}
	return code
}

// fromWire builds the error a remote reported: its code (remoteCode), its
// message, whether it is recoverable (the remote's word, else def), its
// suggested action; the remote's request id goes into the logged cause.
func (c *call) fromWire(w *wireError, msg string, def bool) *apierr.Error {
	rec := def
	if w.Recoverable != nil {
		rec = *w.Recoverable
	}
	e := c.remoteError(remoteCode(w.ErrorCode), msg, rec)
	switch {
	case w.SuggestedAction != "":
		e.Suggest(c.clean(w.SuggestedAction))
	case e.Code == apierr.CodeUpstreamError:
		e.Suggest(suggestStatus) // not the default, which speaks of the model platform
	}
	if e.Code == apierr.CodeUpstreamError {
		e.UpstreamStatus = w.UpstreamStatus
	}
	id := w.RequestID
	if id == "" {
		id = w.Details.RequestID
	}
	if id != "" {
		e.Wrap(c.cleanCause(fmt.Errorf("the remote's request id is %q", apierr.Clip(id))))
	}
	return e
}

// frameError is the error of a copilot_error frame of the remote.
func (c *call) frameError(data []byte) *apierr.Error {
	var w wireError
	if err := json.Unmarshal(data, &w); err != nil {
		return c.protocolError("sent a copilot_error frame that is not an error object: " + apierr.Clip(string(data)))
	}
	msg := w.Message
	if msg == "" {
		msg = "the remote agent service reported " + remoteCode(w.ErrorCode) + " without a message"
	}
	return c.fromWire(&w, msg, false)
}

// statusError is the error of a response with a status other than 2xx:
// UPSTREAM_ERROR carrying the status and the remote's message, or, for a
// body in the ERROR_RESPONSE shape, the remote's code, message,
// recoverability and suggestion.
func (c *call) statusError(status int, body []byte) *apierr.Error {
	def := status == http.StatusTooManyRequests || status >= 500
	prefix := fmt.Sprintf("the remote agent service at %s answered %d: ", c.endpoint, status)
	var shape struct {
		Type    string     `json:"type"`
		Content *wireError `json:"content"`
	}
	if json.Unmarshal(body, &shape) == nil && shape.Type == "ERROR_RESPONSE" && shape.Content != nil {
		msg := shape.Content.Message
		if msg == "" {
			msg = http.StatusText(status)
		}
		e := c.fromWire(shape.Content, prefix+msg, def)
		e.UpstreamStatus = status
		return e
	}
	msg := bodyMessage(body)
	if msg == "" {
		msg = http.StatusText(status)
	}
	e := c.remoteError(apierr.CodeUpstreamError, prefix+msg, def)
	e.UpstreamStatus = status
	if status == http.StatusTooManyRequests {
		return e.Suggest("wait a moment and try again")
	}
	return e.Suggest(suggestStatus)
}

// bodyMessage extracts the message of an error body that is not an
// ERROR_RESPONSE: OpenAI's {"error":{"message"}}, {"error":"…"},
// {"message"}, or the trimmed text.
func bodyMessage(body []byte) string {
	var shape struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &shape) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(shape.Error, &inner) == nil && inner.Message != "":
			return strings.TrimSpace(inner.Message)
		case json.Unmarshal(shape.Error, &s) == nil && s != "":
			return strings.TrimSpace(s)
		case shape.Message != "":
			return strings.TrimSpace(shape.Message)
		}
	}
	return strings.TrimSpace(string(body))
}
