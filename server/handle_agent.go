package server

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/request"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/sse"
)

// postAgent serves POST /agent and POST /agents/{name}: it validates the
// request, then streams the run as Server-Sent-Events.
func (s *Server) postAgent(c echo.Context) error {
	run, err := s.prepare(c)
	if err != nil {
		return err
	}
	s.stream(c, run)
	return nil
}

// prepare reads and decodes the agent request of c and prepares its run.
func (s *Server) prepare(c echo.Context) (*runner.Run, error) {
	name, err := agentParam(c)
	if err != nil {
		return nil, err
	}
	body, err := s.readBody(c)
	if err != nil {
		return nil, err
	}
	w := observe.From(c.Request().Context())
	_, decoded := w.Phase(c.Request().Context(), observe.PhaseDecode)
	req, err := request.Decode(body)
	decoded(err)
	if err != nil {
		return nil, err
	}
	if name != "" {
		if req.Agent != "" && req.Agent != name {
			return nil, apierr.Errorf(apierr.CodeBadRequest, "the path names agent %q but the body names %q", name, req.Agent)
		}
		req.Agent = name
	}
	who, scoped := s.scopeOf(c)
	if scoped && !who.MayCall(req.Agent, firstCommand(req)) {
		return nil, notInScope(req.Agent, firstCommand(req))
	}
	if w != nil {
		// Named before Prepare, so that a request refused there is
		// counted under its agent; a name no agent has is not a label.
		if _, ok := s.cfg.Runner.Registry().Get(req.Agent); ok {
			w.Routed(req.Agent, "", true)
		}
	}
	req.ID = requestIDOf(c)
	// The gateway's own token never goes upstream, auth enabled or not.
	c.Request().Header.Del(HeaderToken)
	req.Header = c.Request().Header
	req.Origin = s.publicURL(c)
	req.Owner = agentCaller(c, req)
	if req.ContextID != "" || req.Context.Has("context") {
		// If-Match names the version of the conversation read.
		if req.ContextVersion, err = ifMatch(c); err != nil {
			return nil, err
		}
	}
	run, err := s.cfg.Runner.Prepare(req)
	if err != nil {
		return nil, err
	}
	w.Routed(run.Agent(), run.Command(), run.Loaded())
	// The command an action or tool results resume is known only now.
	if scoped && !who.MayCall(run.Agent(), run.Command()) {
		return nil, notInScope(run.Agent(), run.Command())
	}
	return run, nil
}

// scopeOf is the caller of an authenticated request with a scope (a
// stored key's); false for any other, which may call every agent.
func (s *Server) scopeOf(c echo.Context) (access.Caller, bool) {
	who, ok := c.Get(keyAccess).(access.Caller)
	return who, ok && who.Scope != nil
}

// firstCommand is the command req names, the default one when it names
// none and resumes nothing; "" when an action or tool results will say.
func firstCommand(req *request.Request) string {
	switch {
	case req.Command != "":
		return req.Command
	case req.Action != nil || len(req.ToolResults) > 0:
		return ""
	}
	return program.DefaultCommand
}

// notInScope is the error of a call a key's scope does not admit.
func notInScope(agent, command string) error {
	what := fmt.Sprintf("agent %q", agent)
	if command != "" {
		what = fmt.Sprintf("command %q of agent %q", command, agent)
	}
	return apierr.Errorf(apierr.CodeForbidden, "this key may not call %s", what).
		Suggest("GET /agents lists what this key may call; ask an admin to widen the key's agents")
}

// postPrompt serves POST /agents/{name}/prompt: the request body the
// command would send the model for the same agent request, built as the
// run would build it (context, recalled references, conversation, budget)
// but sent nowhere. Agent authors and the playground read it.
func (s *Server) postPrompt(c echo.Context) error {
	run, err := s.prepare(c)
	if err != nil {
		return err
	}
	body, err := run.UpstreamRequest(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSONBlob(http.StatusOK, body)
}

// agentParam is the agent named in the path, "" on POST /agent. Echo lets
// a route's last parameter run to the end of the path, so a name with a
// slash means a path no route serves: /agents/x/y is not agent "x/y".
func agentParam(c echo.Context) (string, error) {
	name := c.Param("name")
	if strings.Contains(name, "/") {
		return "", routeNotFound()
	}
	return name, nil
}

// streamHeaders are the response headers of every stream (docs/protocol.md
// §3), canonical and shared: net/http only reads them.
var streamHeaders = http.Header{
	"Content-Type":      {"text/event-stream"},
	"Cache-Control":     {"no-cache"},
	"Connection":        {"keep-alive"},
	"X-Accel-Buffering": {"no"},
}

// streamOut is what a stream is written to: echo's Response, so that the
// status, size and hooks the access log reads stay right, flushed through
// the writer beneath it. Echo's own Flush drops the flush's error; with it,
// a client that went away stops the stream at the flush that failed.
type streamOut struct {
	*echo.Response
	flush func() error
}

// FlushError flushes the response writer beneath echo's Response. A writer
// that cannot flush is not an error: the frames reach the client when it
// writes them.
func (o streamOut) FlushError() error {
	if err := o.flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// stream writes the SSE headers and runs the command into the stream. The
// run's context ends when the client goes away, cancelling the upstream.
func (s *Server) stream(c echo.Context, run *runner.Run) {
	w := c.Response()
	h := w.Header()
	for k, v := range streamHeaders {
		h[k] = v
	}
	w.WriteHeader(http.StatusOK)
	// Streams outlive any server write timeout.
	if err := http.NewResponseController(w.Writer).SetWriteDeadline(time.Time{}); err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.log.Debug("clearing write deadline", "err", err)
	}
	model := run.Model()
	if model == "" {
		model = run.Agent()
	}
	sw := s.writers.NewWriter(streamOut{w, http.NewResponseController(w.Writer).Flush}, sse.Options{
		ID: "chatcmpl-" + uuid.NewString(), Model: model, Created: time.Now().Unix(), Terminator: s.cfg.Terminator,
	})
	// Deferred first, so run last: after the keep-alive stopped and
	// Execute ended the stream (a write after that returns ErrEnded).
	defer s.writers.Release(sw)
	defer sw.StartKeepAlive(s.cfg.KeepAlive)()
	run.Execute(c.Request().Context(), emit.NewSSEEmitter(sw, requestIDOf(c)))
}
