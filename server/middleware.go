package server

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"golang.org/x/time/rate"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/access"
)

// Keys of values handlers leave on the echo context for the access log.
const (
	keyRequestID = "agentgw.request_id"
)

// HeaderRequestID carries the request id in and out.
const HeaderRequestID = "X-Request-Id"

// saneRequestID reports whether a client's request id may be used as it
// is: 1 to 128 of A-Z a-z 0-9 . _ : -.
func saneRequestID(id string) bool {
	if len(id) == 0 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}

// requestID takes a sane X-Request-Id from the client or makes one.
func (s *Server) requestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		rid := c.Request().Header.Get(HeaderRequestID)
		if !saneRequestID(rid) {
			rid = uuid.NewString()
		}
		c.Set(keyRequestID, rid)
		c.Response().Header().Set(HeaderRequestID, rid)
		return next(c)
	}
}

func requestIDOf(c echo.Context) string {
	s, _ := c.Get(keyRequestID).(string)
	return s
}

// millis renders a duration as milliseconds with microsecond precision.
func millis(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

// timingWriter notes when the first byte of the body was written.
type timingWriter struct {
	http.ResponseWriter
	first time.Time
}

func (w *timingWriter) Write(b []byte) (int, error) {
	if w.first.IsZero() {
		w.first = time.Now()
	}
	return w.ResponseWriter.Write(b)
}

// Flush implements http.Flusher.
func (w *timingWriter) Flush() { _ = w.FlushError() }

// FlushError flushes the writer beneath, with its error.
func (w *timingWriter) FlushError() error {
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *timingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *timingWriter) ttfb(start time.Time) time.Duration {
	if w.first.IsZero() {
		return 0
	}
	return w.first.Sub(start)
}

// recoverPanics turns a panic in a handler into an INTERNAL error.
func (s *Server) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				s.log.Error("panic", "request_id", requestIDOf(c), "panic", r, "stack", string(debug.Stack()))
				err = apierr.Internal(fmt.Errorf("panic: %v", r))
			}
		}()
		return next(c)
	}
}

// HeaderToken carries the gateway token when Authorization is the plugin's.
const HeaderToken = "X-Agentgw-Token"

// authenticate checks the inbound credential on everything but /healthz
// and the playground's files (Config.UI): a static token (AuthTokens,
// AdminTokens), compared in memory, else a stored key (Config.Keys), read
// from the store. The matched header, and X-Agentgw-Token in any case, is
// removed so that no gateway credential is forwarded upstream.
func (s *Server) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if p := c.Path(); p == "/healthz" || s.cfg.UI != nil && (p == "/" || p == "/ui" || p == "/ui/*") {
			return next(c)
		}
		h := c.Request().Header
		tok := h.Get(HeaderToken)
		h.Del(HeaderToken)
		if tok != "" {
			who, ok, err := s.credential(c, tok)
			if err != nil {
				return err
			}
			if ok {
				s.putCaller(c, who)
				return next(c)
			}
		}
		if tok, ok := strings.CutPrefix(h.Get("Authorization"), "Bearer "); ok {
			who, ok, err := s.credential(c, tok)
			if err != nil {
				return err
			}
			if ok {
				h.Del("Authorization")
				s.putCaller(c, who)
				return next(c)
			}
		}
		return apierr.Errorf(apierr.CodeUnauthorized, "missing or wrong gateway token").
			Suggest("send Authorization: Bearer <token> or " + HeaderToken + ": <token>")
	}
}

// credential is the caller tok authenticates: a static token's, else a
// live stored key's; false when it is neither.
func (s *Server) credential(c echo.Context, tok string) (access.Caller, bool, error) {
	if s.validToken(tok) {
		return access.Caller{Owner: tokenOwner(tok), Admin: anyToken(tok, s.cfg.AdminTokens)}, true, nil
	}
	if s.cfg.Keys == nil {
		return access.Caller{}, false, nil
	}
	return s.cfg.Keys.Authenticate(c.Request().Context(), tok)
}

// authOn reports whether inbound auth is configured.
func (s *Server) authOn() bool {
	return len(s.cfg.AuthTokens)+len(s.cfg.AdminTokens) > 0 || s.cfg.Keys != nil
}

// validToken reports whether tok is a static inbound token, admin or not.
func (s *Server) validToken(tok string) bool {
	return anyToken(tok, s.cfg.AuthTokens) || anyToken(tok, s.cfg.AdminTokens)
}

// anyToken reports whether tok is one of tokens, comparing every one in
// constant time.
func anyToken(tok string, tokens []string) bool {
	ok := false
	for _, t := range tokens {
		if subtle.ConstantTimeCompare([]byte(tok), []byte(t)) == 1 {
			ok = true
		}
	}
	return ok
}

// putCaller records the authenticated caller of a request: its owner and
// admin flag on the echo context, and, for a stored key (who.KeyID set),
// the whole access.Caller there and in the request's context
// (access.NewContext) for the handlers beyond (openaiapi, usage). A static
// token's request pays for no more than its owner, as before keys.
func (s *Server) putCaller(c echo.Context, who access.Caller) {
	c.Set(keyCaller, who.Owner)
	if who.Admin {
		c.Set(keyAdmin, true)
	}
	if who.KeyID == "" {
		return
	}
	c.Set(keyAccess, who)
	r := c.Request()
	c.SetRequest(r.WithContext(access.NewContext(r.Context(), who)))
}

// rateLimiter limits requests per client address.
func (s *Server) rateLimiter() echo.MiddlewareFunc {
	store := middleware.NewRateLimiterMemoryStoreWithConfig(middleware.RateLimiterMemoryStoreConfig{
		Rate: rate.Limit(s.cfg.RateLimit), Burst: max(s.cfg.RateBurst, 1), ExpiresIn: 3 * time.Minute,
	})
	return middleware.RateLimiterWithConfig(middleware.RateLimiterConfig{
		Skipper: func(c echo.Context) bool { return c.Path() == "/healthz" },
		Store:   store,
		DenyHandler: func(c echo.Context, id string, err error) error {
			return apierr.Errorf(apierr.CodeRateLimited, "too many requests from %s", id).Suggest("wait a moment and try again")
		},
		ErrorHandler: func(c echo.Context, err error) error {
			return apierr.Errorf(apierr.CodeBadRequest, "cannot tell who is calling: %v", err)
		},
	})
}
