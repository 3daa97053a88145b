package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentgw/agentgw/apierr"
)

// ErrorResponse is the seed-000 error shape (docs/protocol.md §4).
type ErrorResponse struct {
	Type    string       `json:"type"`
	Content ErrorContent `json:"content"`
}

// ErrorContent is the content of an ErrorResponse.
type ErrorContent struct {
	ErrorCode       string       `json:"errorCode"`
	Message         string       `json:"message"`
	Details         ErrorDetails `json:"details"`
	Source          string       `json:"source"`
	Recoverable     bool         `json:"recoverable"`
	SuggestedAction string       `json:"suggestedAction"`
}

// ErrorDetails carries the request id and time of an error.
type ErrorDetails struct {
	RequestID string `json:"requestId"`
	Timestamp string `json:"timestamp"`
	// Violations list every problem of a document the request carried (a
	// hand-off message), by JSON pointer.
	Violations []apierr.Violation `json:"violations,omitempty"`
	// ResetsAt is when a budget or a rate limit that refused the request
	// lets it through again (BUDGET_EXCEEDED, RATE_LIMITED).
	ResetsAt string `json:"resetsAt,omitempty"`
}

// handleError renders any error returned before a stream started.
func (s *Server) handleError(err error, c echo.Context) {
	e := toAgentError(err)
	rid := requestIDOf(c)
	if e.Status >= 500 {
		s.log.Error("request failed", "request_id", rid, "code", e.Code, "err", err)
	}
	if c.Response().Committed {
		return
	}
	var resetsAt string
	if ra := e.RetryAfter(time.Now()); ra != "" {
		c.Response().Header().Set("Retry-After", ra)
		resetsAt = e.ResetsAt.UTC().Format(time.RFC3339)
	}
	if s.cfg.OpenAI != nil && strings.HasPrefix(c.Request().URL.Path, openAIPrefix) {
		// OpenAI's clients read OpenAI's error shape.
		s.cfg.OpenAI.WriteError(c.Response(), e)
		return
	}
	body := ErrorResponse{Type: "ERROR_RESPONSE", Content: ErrorContent{
		ErrorCode: e.Code, Message: e.Message, Source: e.Origin(), Recoverable: e.Recoverable,
		SuggestedAction: s.suggestion(e, c),
		Details: ErrorDetails{RequestID: rid, Timestamp: time.Now().UTC().Format(time.RFC3339Nano),
			Violations: e.Violations, ResetsAt: resetsAt},
	}}
	data, _ := json.Marshal(body)
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	if e.Code == apierr.CodeUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="agentgw"`)
	}
	c.Response().WriteHeader(e.Status)
	_, _ = c.Response().Write(data)
}

// toAgentError maps echo's and other errors to the one client error type.
func toAgentError(err error) *apierr.Error {
	var e *apierr.Error
	if errors.As(err, &e) {
		return e
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		switch he.Code {
		case http.StatusNotFound:
			return routeNotFound()
		case http.StatusMethodNotAllowed:
			return apierr.Errorf(apierr.CodeMethodNotAllowed, "method not allowed on this endpoint")
		case http.StatusRequestEntityTooLarge:
			return apierr.Errorf(apierr.CodePayloadTooLarge, "the request body is too large")
		case http.StatusTooManyRequests:
			return apierr.Errorf(apierr.CodeRateLimited, "too many requests")
		case http.StatusUnauthorized:
			return apierr.Errorf(apierr.CodeUnauthorized, "authentication required")
		}
	}
	return apierr.Internal(err)
}

// suggestion is the error's suggested action, or a default for its code so
// that every ERROR_RESPONSE carries one: first the default of the route
// group that answered (routeSuggestion), then the server's own for the
// errors of routing and decoding, else the one in-stream frames get
// (Error.Suggestion).
func (s *Server) suggestion(e *apierr.Error, c echo.Context) string {
	if e.SuggestedAction != "" {
		return e.SuggestedAction
	}
	if r := routeSuggestion(e.Code, c); r != "" {
		return r
	}
	switch e.Code {
	case apierr.CodeBadRequest:
		return "send a JSON object in the shape of the agent request (docs/protocol.md §2)"
	case apierr.CodeUnsupportedMediaType:
		return "send the body as JSON with Content-Type: application/json"
	case apierr.CodeNotFound, apierr.CodeMethodNotAllowed:
		return s.endpoints
	}
	return e.Suggestion()
}

// routeSuggestions are the default suggested actions by route group (the
// first segment of the route that answered) and code, for the errors of
// routes whose objects are not the agent request: a bad schedule is told
// what a schedule looks like, a missing hand-off where its id comes from.
var routeSuggestions = map[string]map[string]string{
	"schedules": {
		apierr.CodeBadRequest: `send a schedule as JSON: {"name", "every"|"cron"|"once", "agent", "command"?, "prompt"?, …} (docs/schedules.md)`,
		apierr.CodeNotFound:   "GET /schedules lists the schedules you can see",
		apierr.CodeConflict:   "GET /schedules/{id} shows the schedule as it is now",
	},
	"contexts": {
		apierr.CodeBadRequest:      `send the body as docs/conversations.md shows`,
		apierr.CodeContextNotFound: contextNotFoundOwner,
	},
	"handoffs": {
		apierr.CodeBadRequest: "send one hand-off message as JSON, as handoff/schemas/message.schema.json describes (docs/multi-agent.md, \"Hand-offs between agents\")",
		apierr.CodeNotFound:   "check the message_id: a hand-off message is seen only by the caller that submitted it; GET /tasks/{task_id} lists a task's messages",
	},
	"tasks": {
		apierr.CodeNotFound: "check the task_id: a task lists only the hand-off messages its caller submitted; POST /handoffs sends one",
	},
}

// The suggestions of a /contexts/{id} request for a context the caller
// does not see: one that names no user, and one that does.
const (
	contextNotFoundAnonymous = "this request names no user, and a context is seen only by the user that created it: " +
		"send its X-Agentgw-User header (the userInfo.id of the agent requests that made it)"
	contextNotFoundOwner = "check the id and who asks: a context is seen only by the caller that created it " +
		"(the same token, or the same X-Agentgw-User header); a deleted id cannot be used again; POST /contexts creates a new one"
)

// routeSuggestion is the default suggestion of code on the route group of
// c (routeSuggestions), "" when the group has none.
func routeSuggestion(code string, c echo.Context) string {
	group, _, _ := strings.Cut(strings.TrimPrefix(c.Path(), "/"), "/")
	if group == "contexts" && code == apierr.CodeContextNotFound && callerOf(c) == Anonymous {
		return contextNotFoundAnonymous
	}
	return routeSuggestions[group][code]
}

// openAIPrefix is the path prefix of the OpenAI-compatible API.
const openAIPrefix = "/v1/"

// routeNotFound is the error of a path no route serves; its suggestion is
// the server's endpoints (Server.suggestion).
func routeNotFound() *apierr.Error {
	return apierr.Errorf(apierr.CodeNotFound, "no such endpoint")
}
