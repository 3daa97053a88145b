package server

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/agentgw/agentgw/internal/access"
)

// Schedules is what serves /schedules: the gateway's schedules
// (cmd/agentgw adapts schedule/agentrun.API to it). Each call says who asks (Server.accessOf): a
// schedule belongs to the caller that made it, another caller's is
// NOT_FOUND and not listed, an admin sees all.
//
// The server only passes the schedules on: each method returns a
// schedule (or a run) as the JSON the API answers with, already shaped,
// so that server links no scheduler or database driver.
type Schedules interface {
	// List is the schedules who sees, each a schedule's JSON.
	List(ctx context.Context, who access.Caller) ([]json.RawMessage, error)
	// Get is schedule id's JSON, when who may see it.
	Get(ctx context.Context, who access.Caller, id string) (json.RawMessage, error)
	// Create makes the schedule body defines, owned by who, and returns its
	// JSON. Create, Patch and RunNow hold the schedule's target to who's
	// scope (a stored key's: FORBIDDEN for an agent, command, tool or
	// handoffTo out of it), and its runs to the scope of the key that made it.
	Create(ctx context.Context, who access.Caller, body []byte) (json.RawMessage, error)
	// Patch changes schedule id as body says and returns its JSON.
	Patch(ctx context.Context, who access.Caller, id string, body []byte) (json.RawMessage, error)
	// Delete deletes schedule id.
	Delete(ctx context.Context, who access.Caller, id string) error
	// RunNow starts a run of schedule id and returns the run's JSON.
	RunNow(ctx context.Context, who access.Caller, id string) (json.RawMessage, error)
}

// scheduleList is the body of GET /schedules.
type scheduleList struct {
	Schedules []json.RawMessage `json:"schedules"`
}

func (s *Server) listSchedules(c echo.Context) error {
	l, err := s.cfg.Schedules.List(c.Request().Context(), s.accessOf(c))
	if err != nil {
		return err
	}
	if l == nil {
		l = []json.RawMessage{}
	}
	return c.JSON(http.StatusOK, scheduleList{Schedules: l})
}

func (s *Server) getSchedule(c echo.Context) error {
	sc, err := s.cfg.Schedules.Get(c.Request().Context(), s.accessOf(c), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, sc)
}

func (s *Server) createSchedule(c echo.Context) error {
	body, err := s.readBody(c)
	if err != nil {
		return err
	}
	sc, err := s.cfg.Schedules.Create(c.Request().Context(), s.accessOf(c), body)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, sc)
}

func (s *Server) patchSchedule(c echo.Context) error {
	body, err := s.readBody(c)
	if err != nil {
		return err
	}
	sc, err := s.cfg.Schedules.Patch(c.Request().Context(), s.accessOf(c), c.Param("id"), body)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, sc)
}

func (s *Server) deleteSchedule(c echo.Context) error {
	if err := s.cfg.Schedules.Delete(c.Request().Context(), s.accessOf(c), c.Param("id")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// runSchedule serves POST /schedules/{id}/run: 202 and the run started.
func (s *Server) runSchedule(c echo.Context) error {
	r, err := s.cfg.Schedules.RunNow(c.Request().Context(), s.accessOf(c), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, r)
}
