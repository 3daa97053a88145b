package server

import (
	"net"

	"github.com/labstack/echo/v4"

	"github.com/agentgw/agentgw/apierr"
)

// localOnly is the middleware of the routes a gateway without inbound auth
// serves only to clients on its own host: the object APIs (contexts,
// hand-offs and tasks, schedules, knowledge bases), /mcp and /metrics. A
// peer that is not on loopback gets 403 FORBIDDEN. With inbound auth the
// token decides, and localOnly adds nothing. The agent endpoints (POST
// /agent, /agents/{name}, GET /agents), the OpenAI API under /v1/,
// /healthz and the playground's files stay open, as before: a plugin
// reaches them.
func (s *Server) localOnly() []echo.MiddlewareFunc {
	if s.authOn() {
		return nil
	}
	return []echo.MiddlewareFunc{s.refuseRemote}
}

// refuseRemote answers 403 FORBIDDEN to a request not from loopback.
func (s *Server) refuseRemote(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if fromLoopback(c) {
			return next(c)
		}
		return apierr.Errorf(apierr.CodeForbidden, "%s is served only to clients on the gateway's own host: the gateway has no inbound auth", c.Path()).
			Suggest("call it from the gateway's host, or ask the gateway's operator to configure inbound auth (server.authTokensEnv)")
	}
}

// fromLoopback reports whether the request comes from this host: its peer
// is on loopback and, when a proxy on this host relayed it, so is the
// client the proxy names (X-Forwarded-For, as the rate limit reads it, and
// X-Real-Ip); a Forwarded header is not read, so it is refused.
func fromLoopback(c echo.Context) bool {
	r := c.Request()
	if !loopbackIP(hostOf(r.RemoteAddr)) {
		return false
	}
	h := r.Header
	if h.Get("Forwarded") != "" {
		return false
	}
	if h.Get("X-Forwarded-For") != "" && !loopbackIP(c.RealIP()) {
		return false
	}
	if v := h.Get("X-Real-Ip"); v != "" && !loopbackIP(v) {
		return false
	}
	return true
}

// hostOf is the host of a host:port address, or the address itself.
func hostOf(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}

// loopbackIP reports whether s is a loopback IP address.
func loopbackIP(s string) bool {
	ip := net.ParseIP(s)
	return ip != nil && ip.IsLoopback()
}
