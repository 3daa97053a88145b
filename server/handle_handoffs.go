package server

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/agentgw/agentgw/internal/access"
)

// Handoffs is what serves /handoffs and /tasks: the gateway's hand-off hub.
// Every message belongs to the caller that submitted it; another caller
// is told it does not exist (404), an admin sees all.
//
// The server only passes the hub's answers on: each method returns the
// JSON the API answers with (docs/protocol.md: a message's status, a
// task's messages), already shaped, so that server links no queue.
type Handoffs interface {
	// Submit checks and queues caller's message, held to caller's scope
	// (a stored key's: FORBIDDEN for a recipient out of it, and the
	// messages its run sends are held to it too); fresh is false for a
	// message id of caller's seen before (its record is returned as it
	// is); another owner's id is a 409. st is the message's status.
	Submit(ctx context.Context, caller access.Caller, raw []byte) (st json.RawMessage, fresh bool, err error)
	// Get is a message's status and result, when caller owns it.
	Get(ctx context.Context, caller access.Caller, id string) (json.RawMessage, error)
	// Task lists caller's messages of a task and their results in order.
	Task(ctx context.Context, caller access.Caller, taskID string) (json.RawMessage, error)
}

// postHandoff serves POST /handoffs: 202 and the message's status when it
// is queued, 200 and its status as it is when its id was seen before (the
// same answer, nothing run again).
func (s *Server) postHandoff(c echo.Context) error {
	body, err := s.readBody(c)
	if err != nil {
		return err
	}
	st, fresh, err := s.cfg.Handoffs.Submit(c.Request().Context(), s.accessOf(c), body)
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
	st, err := s.cfg.Handoffs.Get(c.Request().Context(), s.accessOf(c), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, st)
}

// getTask serves GET /tasks/{task_id}.
func (s *Server) getTask(c echo.Context) error {
	t, err := s.cfg.Handoffs.Task(c.Request().Context(), s.accessOf(c), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, t)
}
