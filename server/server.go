package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/conversation"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/sse"
)

// Config configures the HTTP server.
type Config struct {
	Runner *runner.Runner
	Logger *slog.Logger
	// BodyLimit caps request bodies in bytes; 0 means 16 MiB.
	BodyLimit int64
	// KeepAlive is the silence after which a stream gets a ": ping"
	// comment; 0 means 15s.
	KeepAlive time.Duration
	// Terminator is the end-of-stream literal: "[DONE]" (default) or "[Done]".
	Terminator string
	// PublicURL is this gateway's address as the platform reaches it, used
	// as service.endpoint in exported definitions; "" means the request's host.
	PublicURL string
	// AuthTokens enables inbound auth when non-empty: requests need
	// "Authorization: Bearer <token>" or "X-Agentgw-Token: <token>".
	AuthTokens []string
	// AdminTokens are inbound tokens that also see and change every
	// owner's objects (schedules, hand-offs, tasks; access.Caller.Admin).
	// They authenticate like AuthTokens, and turn inbound auth on too.
	AdminTokens []string
	// Keys, when set, takes the stored keys (package keys) as inbound
	// credentials beside the static tokens, turning inbound auth on, and
	// serves the admin API /keys (admins only). A key's scope limits the
	// agents and commands it may call and the models it may reach through
	// /v1; its identity owns what it creates (access.Caller).
	Keys Keys
	// RateLimit is the sustained requests per second allowed per client
	// address, with RateBurst; 0 disables rate limiting.
	RateLimit float64
	RateBurst int
	// ReadHeaderTimeout bounds reading a request's headers; 0 means
	// DefaultReadHeaderTimeout.
	ReadHeaderTimeout time.Duration
	// IdleTimeout bounds the wait for a connection's next request, and for
	// its first one (firstRequestListener); 0 means DefaultIdleTimeout.
	// Keep it above the idle time of the clients' connection pools: a
	// client that sends a request on a connection as the server closes it
	// gets EOF, and does not send a POST again by itself.
	IdleTimeout time.Duration
	// BodyReadTimeout bounds reading a request's body, from the end of its
	// headers; 0 means DefaultBodyReadTimeout. It bounds reading only: the
	// deadline is cleared once the body is read, so streams are not cut.
	BodyReadTimeout time.Duration
	// Version is reported by /healthz.
	Version string
	// MCP, when set, serves the Model Context Protocol (streamable HTTP)
	// at /mcp.
	MCP http.Handler
	// Contexts, when set, serves the conversation contexts at /contexts.
	Contexts conversation.Repo
	// Handoffs, when set, takes hand-off messages at /handoffs and tells
	// their status there and by task at /tasks.
	Handoffs Handoffs
	// Schedules, when set, serves the schedules at /schedules.
	Schedules Schedules
	// Knowledge, when set, serves the knowledge bases at /knowledge-bases.
	Knowledge Knowledge
	// Metrics, when set, serves GET /metrics (the Prometheus metrics),
	// behind the inbound auth like every route but /healthz.
	Metrics http.Handler
	// Observers watch every request (observe package), after the access
	// log, which the server adds itself.
	Observers observe.Observers
	// UI, when set, serves the playground at /ui and /ui/*. Its files are
	// the same for everyone and hold no data, so they are served without a
	// token (a browser cannot send one to load a page); everything the page
	// does goes through the API above, behind the inbound auth.
	UI http.Handler
	// OpenAI, when set, serves the OpenAI-compatible API under /v1/
	// (package openaiapi), behind the same middleware as every route; the
	// errors of that middleware on /v1/ are rendered by its WriteError.
	OpenAI OpenAI
	// Meter, when set, holds the requests that may reach the model (the
	// agent endpoints, /v1/chat/completions, POST /mcp, whose tools may
	// run agents) to their budgets before they run, records what they
	// cost, and serves GET /usage.
	Meter Meter
}

// OpenAI is an OpenAI-compatible API: a handler of /v1/ and the renderer
// of errors in its shape.
type OpenAI interface {
	http.Handler
	// WriteError writes an error returned before the handler answered.
	WriteError(w http.ResponseWriter, e *apierr.Error)
}

// Server is the gateway's HTTP server.
type Server struct {
	cfg  Config
	echo *echo.Echo
	log  *slog.Logger
	// writers recycles the buffers of the streams' SSE writers.
	writers sse.WriterPool
	// observers are the access log and Config.Observers.
	observers observe.Observers
	// endpoints lists the routes (endpointList), the suggestion of
	// NOT_FOUND and METHOD_NOT_ALLOWED.
	endpoints string
}

// DefaultBodyLimit is the body cap when none is configured.
const DefaultBodyLimit = 16 << 20

// New builds the server and its routes.
func New(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.BodyLimit <= 0 {
		cfg.BodyLimit = DefaultBodyLimit
	}
	if cfg.ReadHeaderTimeout <= 0 {
		cfg.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if cfg.BodyReadTimeout <= 0 {
		cfg.BodyReadTimeout = DefaultBodyReadTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.Knowledge == nil {
		cfg.Knowledge = noKnowledge{}
	}
	if cfg.KeepAlive <= 0 {
		cfg.KeepAlive = 15 * time.Second
	}
	if cfg.Meter != nil {
		cfg.Observers = append(slices.Clip(cfg.Observers), cfg.Meter)
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	// The client address (rate limit, access log) comes from
	// X-Forwarded-For only when a proxy on a loopback, link-local or
	// private address sent it; echo's default believes any client.
	e.IPExtractor = echo.ExtractIPFromXFFHeader()
	s := &Server{cfg: cfg, echo: e, log: cfg.Logger,
		observers: append(observe.Observers{accessLog{cfg.Logger}}, cfg.Observers...)}
	e.HTTPErrorHandler = s.handleError
	// The body's read deadline comes before routing, so that a body no
	// handler reads is bounded as well while net/http discards it.
	e.Pre(s.bodyDeadline)
	e.Use(s.recoverPanics, s.requestID, s.observeRequests)
	if s.authOn() {
		e.Use(s.authenticate)
	}
	if cfg.RateLimit > 0 {
		e.Use(s.rateLimiter())
	}
	e.GET("/healthz", s.health)
	e.GET("/agents", s.listAgents)
	e.GET("/agents/:name", s.getAgent)
	// What reaches the model is metered when a Meter is configured; else
	// it costs nothing.
	var metered []echo.MiddlewareFunc
	if cfg.Meter != nil {
		metered = []echo.MiddlewareFunc{s.metered}
	}
	e.POST("/agent", s.postAgent, metered...)
	e.POST("/agents/:name", s.postAgent, metered...)
	e.POST("/agents/:name/prompt", s.postPrompt)
	// The object APIs, /mcp and /metrics: without inbound auth, for
	// clients on this host only (localOnly).
	local := s.localOnly()
	if cfg.Contexts != nil {
		e.POST("/contexts", s.createContext, local...)
		e.GET("/contexts/:id", s.getContext, local...)
		e.PATCH("/contexts/:id", s.patchContext, local...)
		e.DELETE("/contexts/:id", s.deleteContext, local...)
		e.GET("/contexts/:id/changes", s.contextChanges, local...)
	}
	if cfg.Handoffs != nil {
		e.POST("/handoffs", s.postHandoff, local...)
		e.GET("/handoffs/:id", s.getHandoff, local...)
		e.GET("/tasks/:id", s.getTask, local...)
	}
	// Without knowledge bases the list is empty and every id unknown.
	e.GET("/knowledge-bases", s.listKnowledgeBases, local...)
	e.POST("/knowledge-bases/:id/search", s.searchKnowledgeBase, local...)
	if cfg.Schedules != nil {
		e.GET("/schedules", s.listSchedules, local...)
		e.POST("/schedules", s.createSchedule, local...)
		e.GET("/schedules/:id", s.getSchedule, local...)
		e.PATCH("/schedules/:id", s.patchSchedule, local...)
		e.DELETE("/schedules/:id", s.deleteSchedule, local...)
		e.POST("/schedules/:id/run", s.runSchedule, local...)
	}
	if cfg.Keys != nil {
		e.GET("/keys", s.listKeys, s.adminOnly)
		e.POST("/keys", s.createKey, s.adminOnly)
		e.GET("/keys/:id", s.getKey, s.adminOnly)
		e.POST("/keys/:id/rotate", s.rotateKey, s.adminOnly)
		e.DELETE("/keys/:id", s.revokeKey, s.adminOnly)
	}
	if cfg.MCP != nil {
		e.Any("/mcp", s.withBody(cfg.MCP), append(append(local, s.everyAgent), metered...)...)
	}
	if cfg.Meter != nil {
		e.GET("/usage", s.getUsage, local...)
	}
	if cfg.Metrics != nil {
		e.GET("/metrics", echo.WrapHandler(cfg.Metrics), local...)
	}
	if cfg.UI != nil {
		e.GET("/", toPlayground)
		e.GET("/ui", echo.WrapHandler(cfg.UI))
		e.GET("/ui/*", echo.WrapHandler(cfg.UI))
	}
	if cfg.OpenAI != nil {
		// One route per endpoint, so that the access log and the metrics
		// tell them apart; the handler routes again by method and path.
		h := s.withBody(cfg.OpenAI)
		e.Any("/v1/chat/completions", h, metered...)
		for _, p := range []string{"/v1/models", "/v1/models/*", openAIPrefix + "*"} {
			e.Any(p, h)
		}
	}
	s.endpoints = endpointList(e.Routes())
	return s
}

// toPlayground serves GET / when the playground is on: a redirect to it.
// The Location is relative ("ui/"), so that it also works behind a proxy
// that adds a path prefix.
func toPlayground(c echo.Context) error {
	return c.Redirect(http.StatusFound, "ui/")
}

// Handler returns the server as an http.Handler.
func (s *Server) Handler() http.Handler { return s.echo }

// Serve accepts connections on ln until ctx ends, then shuts down
// gracefully, giving streams in flight up to grace to finish. A connection
// reaches the HTTP server once its first request starts to arrive
// (firstRequestListener): its headers are then bounded by
// ReadHeaderTimeout, the wait for them by IdleTimeout, as for every later
// request on it.
func (s *Server) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	srv := &http.Server{
		Handler:           s.echo,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	ln = newFirstRequestListener(ln, s.cfg.IdleTimeout)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
