package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/observe"
)

// Meter holds requests to their budgets and records what they cost
// (package usage, wired by cmd/agentgw). It is one of the server's
// observers (New adds it): a request it admits is watched to its end.
type Meter interface {
	observe.Observer
	// Admit is called before a request that may reach the model is
	// served, with its caller and the length of its body (-1 when
	// unknown). It returns the Run that watches the request to its end
	// (it is added to the request's observe.Watch), or the error to
	// answer instead (BUDGET_EXCEEDED, RATE_LIMITED).
	Admit(ctx context.Context, who access.Caller, requestID string, bodyBytes int64) (observe.Run, error)
	// Usage is the answer of GET /usage: the usage since since grouped
	// by by, as who may see it, as JSON. It returns a BAD_REQUEST for a
	// dimension it does not know.
	Usage(ctx context.Context, who access.Caller, by string, since time.Time) (json.RawMessage, error)
}

// metered holds the requests of a route to the Meter's budgets before
// its handler runs (POSTs only: the /v1 routes take every method), and
// has their usage recorded when they end.
func (s *Server) metered(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.Method != http.MethodPost {
			return next(c)
		}
		run, err := s.cfg.Meter.Admit(r.Context(), s.accessOf(c), requestIDOf(c), r.ContentLength)
		if err != nil {
			return err
		}
		observe.From(r.Context()).Also(run)
		return next(c)
	}
}

// usageSince is the default of GET /usage's since: the start of the
// current UTC month, the window of monthly budgets.
func usageSince(now time.Time) time.Time {
	now = now.UTC()
	return time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// parseSince reads GET /usage's since: an RFC 3339 time, a date
// (2006-01-02, UTC) or a duration back from now (24h).
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return usageSince(now), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, apierr.Errorf(apierr.CodeBadRequest, "since %q is not a time (RFC 3339), a date (YYYY-MM-DD) or a duration (24h)", s)
}

// getUsage serves GET /usage?by=key|user|team|agent|model&since=…: the
// tokens and cost of the requests since then, a row per key, user, team,
// agent or model; an admin sees every key's, another caller its own.
func (s *Server) getUsage(c echo.Context) error {
	by := c.QueryParam("by")
	if by == "" {
		by = "model"
	}
	since, err := parseSince(strings.TrimSpace(c.QueryParam("since")), time.Now())
	if err != nil {
		return err
	}
	body, err := s.cfg.Meter.Usage(c.Request().Context(), s.accessOf(c), by, since)
	if err != nil {
		return err
	}
	return c.JSONBlob(http.StatusOK, body)
}
