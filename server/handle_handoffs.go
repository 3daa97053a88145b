package server

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/agentgw/agentgw/handoff/hub"
)

// Handoffs is what serves /handoffs and /tasks: the gateway's hand-off hub.
type Handoffs interface {
	// Submit checks and queues a message; fresh is false for a message id
	// seen before (its record is returned as it is).
	Submit(ctx context.Context, raw []byte) (st *hub.Status, fresh bool, err error)
	// Get is a message's status and result.
	Get(ctx context.Context, id string) (*hub.Status, error)
	// Task lists a task's messages and results in order.
	Task(ctx context.Context, taskID string) (*hub.TaskStatus, error)
}

// postHandoff serves POST /handoffs: 202 and the message's status when it
// is queued, 200 and its status as it is when its id was seen before (the
// same answer, nothing run again).
func (s *Server) postHandoff(c echo.Context) error {
	body, err := s.readBody(c)
	if err != nil {
		return err
	}
	st, fresh, err := s.cfg.Handoffs.Submit(c.Request().Context(), body)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if fresh {
		status = http.StatusAccepted
	}
	return c.JSON(status, st)
}

// getHandoff serves GET /handoffs/{message_id}.
func (s *Server) getHandoff(c echo.Context) error {
	st, err := s.cfg.Handoffs.Get(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, st)
}

// getTask serves GET /tasks/{task_id}.
func (s *Server) getTask(c echo.Context) error {
	t, err := s.cfg.Handoffs.Task(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, t)
}
