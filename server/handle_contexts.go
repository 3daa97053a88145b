package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agentgw/agentgw/agent/request"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/conversation"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/internal/jsonscan"
)

// keyCaller is the echo context key of the caller's identity, keyAdmin
// of whether its credential is an admin's, keyAccess of the whole
// access.Caller of an authenticated request.
const (
	keyCaller = "agentgw.caller"
	keyAdmin  = "agentgw.admin"
	keyAccess = "agentgw.access"
)

// Anonymous is the owner of the contexts created without inbound auth by
// a caller that names no user.
const Anonymous = conversation.Anonymous

// HeaderUser names the user of a /contexts request when inbound auth is
// off: what userInfo.id is to an agent request.
const HeaderUser = "X-Agentgw-User"

// callerOf is the identity the contexts of a /contexts request are owned
// by: the inbound token's (tokenOwner), else, with inbound auth off, the
// user X-Agentgw-User names (userOwner), else Anonymous.
func callerOf(c echo.Context) string {
	if s, ok := c.Get(keyCaller).(string); ok {
		return s
	}
	return userOwner(c.Request().Header.Get(HeaderUser))
}

// accessOf is who makes the request, for the objects callers own
// (schedules, hand-offs, tasks): its identity as callerOf says, an admin
// when its token is an admin token or when inbound auth is off (every
// caller is then the operator).
func (s *Server) accessOf(c echo.Context) access.Caller {
	if who, ok := c.Get(keyAccess).(access.Caller); ok {
		return who
	}
	admin, _ := c.Get(keyAdmin).(bool)
	return access.Caller{Owner: callerOf(c), Admin: admin || !s.authOn()}
}

// agentCaller is the identity an agent request's conversation is owned
// by: the inbound token's, else the request's userInfo.id, else Anonymous.
func agentCaller(c echo.Context, req *request.Request) string {
	if s, ok := c.Get(keyCaller).(string); ok {
		return s
	}
	if u := req.Context.UserInfo; u != nil {
		return userOwner(u.ID)
	}
	return Anonymous
}

// userOwner is the identity of a user id (contexts.UserOwner).
func userOwner(id string) string { return conversation.UserOwner(id) }

// tokenOwner is the identity of an inbound token.
func tokenOwner(tok string) string {
	sum := sha256.Sum256([]byte(tok))
	return access.TokenOwner(hex.EncodeToString(sum[:16]))
}

// contextError is the protocol error of a contexts error.
func contextError(id string, err error) error { return conversation.ProtocolError(id, err) }

// createRequest is the optional body of POST /contexts.
type createRequest struct {
	ContextID string         `json:"contextId"`
	Metadata  map[string]any `json:"metadata"`
}

// decodeJSON decodes the request body, if any, into v.
func (s *Server) decodeJSON(c echo.Context, v any, what string) error {
	body, err := s.readBody(c)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	// The request path's tokenizer first, as for agent requests: it
	// refuses invalid UTF-8, which encoding/json would silently replace
	// with U+FFFD and store.
	if err := validJSON(body); err != nil {
		return apierr.Errorf(apierr.CodeBadRequest, "the body is not a valid %s: %v", what, err).
			Suggest("send the body as JSON in UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return apierr.Errorf(apierr.CodeBadRequest, "the body is not a valid %s: %v", what, err).
			Suggest("see docs/conversations.md")
	}
	return nil
}

// validJSON checks that body is one JSON value, strings in valid UTF-8,
// with internal/jsonscan (linear in the body, iterative however deep).
func validJSON(body []byte) error {
	sc := &jsonscan.Scanner{Data: body}
	if err := sc.Skip(); err != nil {
		return err
	}
	if sc.WS(); sc.Pos != len(body) {
		return sc.Unexpected("after the value")
	}
	return nil
}

// contextFormat is the shape a /contexts request asks its context in:
// ?format=seed for the seed's (contexts.Seed), else the project's.
func contextFormat(c echo.Context) (seed bool, err error) {
	switch f := c.QueryParam("format"); f {
	case "", "project":
		return false, nil
	case "seed":
		return true, nil
	default:
		return false, apierr.Errorf(apierr.CodeBadRequest, "format=%q is not a context format", apierr.Clip(f)).
			Suggest("leave format out for the project's shape, or send format=seed for the seed's (seed 000 section 8.1)")
	}
}

// answerContext answers ctx in the shape format asked for.
func answerContext(c echo.Context, status int, ctx *conversation.Context, seed bool) error {
	if seed {
		return c.JSON(status, conversation.Seed(ctx))
	}
	return c.JSON(status, ctx)
}

// createContext serves POST /contexts: 201 and the new context.
func (s *Server) createContext(c echo.Context) error {
	seed, err := contextFormat(c)
	if err != nil {
		return err
	}
	var req createRequest
	if err := s.decodeJSON(c, &req, "context creation ({\"contextId\"?, \"metadata\"?})"); err != nil {
		return err
	}
	ctx, err := s.cfg.Contexts.Create(c.Request().Context(), req.ContextID, callerOf(c), req.Metadata)
	if err != nil {
		return contextError(req.ContextID, err)
	}
	return answerContext(c, http.StatusCreated, ctx, seed)
}

// getContext serves GET /contexts/{id} (?format=seed: in the seed's shape).
func (s *Server) getContext(c echo.Context) error {
	id := c.Param("id")
	seed, err := contextFormat(c)
	if err != nil {
		return err
	}
	ctx, err := s.cfg.Contexts.Get(c.Request().Context(), id, callerOf(c))
	if err != nil {
		return contextError(id, err)
	}
	return answerContext(c, http.StatusOK, ctx, seed)
}

// ifMatch is the version of an If-Match header ("3", "\"3\"" or
// "W/\"3\""), 0 without one or with "*".
func ifMatch(c echo.Context) (int64, error) {
	h := strings.TrimSpace(c.Request().Header.Get("If-Match"))
	if h == "" || h == "*" { // "*": any current version
		return 0, nil
	}
	v, err := strconv.ParseInt(strings.Trim(strings.TrimPrefix(h, "W/"), `"`), 10, 64)
	if err != nil || v < 1 {
		return 0, apierr.Errorf(apierr.CodeBadRequest, "If-Match %q is not a context version", h).
			Suggest("send the context's version, a positive integer")
	}
	return v, nil
}

// patchContext serves PATCH /contexts/{id}: UPDATE_STATE (a merge-patch
// state, or the seed's path and value), CLEAR_HISTORY (all, or the seed's
// filter beforeTimestamp) or ADD_MESSAGE (the project's or the seed's
// message), bare or in the seed's CONTEXT_UPDATE envelope
// (contexts.DecodeUpdate), at the version in the body or If-Match (they
// must agree); 200 and the context after.
func (s *Server) patchContext(c echo.Context) error {
	id := c.Param("id")
	if !conversation.ValidID(id) {
		return contextError(id, conversation.ErrBadID)
	}
	expect, err := ifMatch(c)
	if err != nil {
		return err
	}
	seed, err := contextFormat(c)
	if err != nil {
		return err
	}
	body, err := s.readBody(c)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return contextError(id, fmt.Errorf("%w: the body names no operation", conversation.ErrBadOperation))
	}
	// The request path's tokenizer first, as decodeJSON does.
	if err := validJSON(body); err != nil {
		return apierr.Errorf(apierr.CodeBadRequest, "the body is not a valid context operation: %v", err).
			Suggest("send the body as JSON in UTF-8")
	}
	u, err := conversation.DecodeUpdate(body)
	if err != nil {
		return contextError(id, err)
	}
	if u.ContextID != "" && u.ContextID != id {
		return apierr.Errorf(apierr.CodeBadRequest, "the body's contextId %q is not the path's %q", apierr.Clip(u.ContextID), id).
			Suggest("leave contextId out of the envelope, or send it to PATCH /contexts/{contextId}")
	}
	if u.Version != nil {
		if *u.Version < 1 || expect != 0 && expect != *u.Version {
			return apierr.Errorf(apierr.CodeBadRequest, "version %d is not a context version or disagrees with If-Match", *u.Version)
		}
		expect = *u.Version
	}
	ctx, err := s.cfg.Contexts.Apply(c.Request().Context(), id, callerOf(c), u.Op, expect)
	if err != nil {
		return contextError(id, err)
	}
	return answerContext(c, http.StatusOK, ctx, seed)
}

// deleteContext serves DELETE /contexts/{id}: 204; If-Match is checked.
func (s *Server) deleteContext(c echo.Context) error {
	id := c.Param("id")
	expect, err := ifMatch(c)
	if err != nil {
		return err
	}
	if err := s.cfg.Contexts.Delete(c.Request().Context(), id, callerOf(c), expect); err != nil {
		return contextError(id, err)
	}
	return c.NoContent(http.StatusNoContent)
}

// contextChanges serves GET /contexts/{id}/changes?since=VERSION.
func (s *Server) contextChanges(c echo.Context) error {
	id := c.Param("id")
	var since int64
	if q := c.QueryParam("since"); q != "" {
		v, err := strconv.ParseInt(q, 10, 64)
		if err != nil || v < 0 {
			return apierr.Errorf(apierr.CodeBadRequest, "since=%q is not a context version", q).
				Suggest("send since=N, the version you have (0 for the whole log)")
		}
		since = v
	}
	ch, err := s.cfg.Contexts.Changes(c.Request().Context(), id, callerOf(c), since)
	if err != nil {
		return contextError(id, err)
	}
	return c.JSON(http.StatusOK, ch)
}
