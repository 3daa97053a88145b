package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentgw/agentgw/agent"
)

// ErrorResponse is the seed-000 error shape (PROTOCOL.md section 5).
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
	Violations []agent.Violation `json:"violations,omitempty"`
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
	if s.cfg.OpenAI != nil && strings.HasPrefix(c.Request().URL.Path, openAIPrefix) {
		// OpenAI's clients read OpenAI's error shape.
		s.cfg.OpenAI.WriteError(c.Response(), e)
		return
	}
	body := ErrorResponse{Type: "ERROR_RESPONSE", Content: ErrorContent{
		ErrorCode: e.Code, Message: e.Message, Source: e.Origin(), Recoverable: e.Recoverable,
		SuggestedAction: s.suggestion(e),
		Details: ErrorDetails{RequestID: rid, Timestamp: time.Now().UTC().Format(time.RFC3339Nano),
			Violations: e.Violations},
	}}
	data, _ := json.Marshal(body)
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	if e.Code == agent.CodeUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="agentgw"`)
	}
	c.Response().WriteHeader(e.Status)
	_, _ = c.Response().Write(data)
}

// toAgentError maps echo's and other errors to the one client error type.
func toAgentError(err error) *agent.Error {
	var e *agent.Error
	if errors.As(err, &e) {
		return e
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		switch he.Code {
		case http.StatusNotFound:
			return routeNotFound()
		case http.StatusMethodNotAllowed:
			return agent.Errorf(agent.CodeMethodNotAllowed, "method not allowed on this endpoint")
		case http.StatusRequestEntityTooLarge:
			return agent.Errorf(agent.CodePayloadTooLarge, "the request body is too large")
		case http.StatusTooManyRequests:
			return agent.Errorf(agent.CodeRateLimited, "too many requests")
		case http.StatusUnauthorized:
			return agent.Errorf(agent.CodeUnauthorized, "authentication required")
		}
	}
	return agent.Internal(err)
}

// suggestion is the error's suggested action, or a default for its code so
// that every ERROR_RESPONSE carries one: the server's own for the errors of
// routing and decoding, else the one in-stream frames get (Error.Suggestion).
func (s *Server) suggestion(e *agent.Error) string {
	if e.SuggestedAction != "" {
		return e.SuggestedAction
	}
	switch e.Code {
	case agent.CodeBadRequest:
		return "send a JSON object in the shape of the agent request (PROTOCOL.md section 1)"
	case agent.CodeUnsupportedMediaType:
		return "send the body as JSON with Content-Type: application/json"
	case agent.CodeNotFound, agent.CodeMethodNotAllowed:
		return s.endpoints
	}
	return e.Suggestion()
}

// openAIPrefix is the path prefix of the OpenAI-compatible API.
const openAIPrefix = "/v1/"

// routeNotFound is the error of a path no route serves; its suggestion is
// the server's endpoints (Server.suggestion).
func routeNotFound() *agent.Error {
	return agent.Errorf(agent.CodeNotFound, "no such endpoint")
}
