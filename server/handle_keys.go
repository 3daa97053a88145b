package server

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/access"
)

// Keys is the gateway's stored keys (cmd/agentgw passes package keys' API):
// inbound credentials that carry an identity and a scope (access.Caller),
// and the admin API over them at /keys.
//
// The server only passes the keys on: each method returns a key as the
// JSON the API answers with, already shaped, so that server links no
// database driver.
type Keys interface {
	// Authenticate is the caller of a request that sent the credential
	// secret; false when no live key has it (an error is the store's).
	Authenticate(ctx context.Context, secret string) (access.Caller, bool, error)
	// List is every key's JSON, revoked ones included; never a secret.
	List(ctx context.Context) ([]json.RawMessage, error)
	// Get is key id's JSON.
	Get(ctx context.Context, id string) (json.RawMessage, error)
	// Create makes the key body describes, created by who, and returns
	// its JSON with its secret, the only time the secret is shown.
	Create(ctx context.Context, who access.Caller, body []byte) (json.RawMessage, error)
	// Rotate gives key id a new secret and returns its JSON with it.
	Rotate(ctx context.Context, id string) (json.RawMessage, error)
	// Revoke revokes key id and returns its JSON.
	Revoke(ctx context.Context, id string) (json.RawMessage, error)
}

// keyList is the body of GET /keys.
type keyList struct {
	Keys []json.RawMessage `json:"keys"`
}

// adminOnly serves a route to admins only (access.Caller.Admin: an admin
// token or key); anyone else gets FORBIDDEN.
func (s *Server) adminOnly(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !s.accessOf(c).Admin {
			return apierr.Errorf(apierr.CodeForbidden, "%s %s is the admin API: it needs an admin key or token", c.Request().Method, c.Path()).
				Suggest("ask an admin, or use a key created with \"admin\": true")
		}
		return next(c)
	}
}

func (s *Server) listKeys(c echo.Context) error {
	l, err := s.cfg.Keys.List(c.Request().Context())
	if err != nil {
		return err
	}
	if l == nil {
		l = []json.RawMessage{}
	}
	return c.JSON(http.StatusOK, keyList{Keys: l})
}

func (s *Server) getKey(c echo.Context) error {
	k, err := s.cfg.Keys.Get(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, k)
}

func (s *Server) createKey(c echo.Context) error {
	body, err := s.readBody(c)
	if err != nil {
		return err
	}
	if err := validJSON(body); err != nil {
		return apierr.Errorf(apierr.CodeBadRequest, "the body is not a valid key: %v", err).Suggest("send the body as JSON in UTF-8")
	}
	k, err := s.cfg.Keys.Create(c.Request().Context(), s.accessOf(c), body)
	if err != nil {
		return err
	}
	noStore(c)
	return c.JSON(http.StatusCreated, k)
}

func (s *Server) rotateKey(c echo.Context) error {
	k, err := s.cfg.Keys.Rotate(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	noStore(c)
	return c.JSON(http.StatusOK, k)
}

func (s *Server) revokeKey(c echo.Context) error {
	k, err := s.cfg.Keys.Revoke(c.Request().Context(), c.Param("id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, k)
}

// noStore keeps an answer that holds a secret out of every cache.
func noStore(c echo.Context) { c.Response().Header().Set("Cache-Control", "no-store") }

// everyAgent serves a route that runs the agents' tools (/mcp) only to
// callers that may call every agent. An exported tool is no agent's
// command: tools are shared by name across agents and may themselves ask
// any agent (the ask_agent tool), so there is no target to check against
// a key's scope, and a key limited to some agents gets FORBIDDEN there
// rather than a way around its limits. (Hand-offs and schedules check
// their targets against the caller's scope themselves: Handoffs,
// Schedules.)
func (s *Server) everyAgent(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if who, scoped := s.scopeOf(c); scoped && !slices.Contains(who.Scope.Agents, "*") {
			return apierr.Errorf(apierr.CodeForbidden, "%s %s runs the agents' tools, which are no agent's command: it needs a key whose agents are \"*\"", c.Request().Method, c.Path()).
				Suggest("call the agent directly (POST /agents/{name}), or ask an admin for a key with agents [\"*\"]")
		}
		return next(c)
	}
}
