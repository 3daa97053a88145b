package server

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agentgw/agentgw/apierr"
)

// Defaults of the read bounds.
const (
	// DefaultReadHeaderTimeout bounds reading a request's headers.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultBodyReadTimeout bounds reading a request's body.
	DefaultBodyReadTimeout = 30 * time.Second
	// DefaultIdleTimeout bounds the wait for a connection's next request,
	// and for its first.
	DefaultIdleTimeout = 120 * time.Second
)

// bodyStart is the most a body buffer holds before any byte arrived: a
// declared Content-Length is a claim, and the buffer grows as bytes arrive.
const bodyStart = 32 << 10

// bodyDeadline bounds the time to read a request's body: for a request that
// has one, it sets the connection's read deadline to BodyReadTimeout from
// now. The handler that reads the body clears it (readAll; net/http also
// does when the body reaches its end), so the stream that follows is not
// cut; a body left unread (an error answered first) stays bounded while
// net/http discards it.
func (s *Server) bodyDeadline(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
			s.setReadDeadline(c, time.Now().Add(s.cfg.BodyReadTimeout))
		}
		return next(c)
	}
}

// setReadDeadline sets the read deadline of the request's connection; the
// zero time clears it. A writer that cannot (a test recorder) is no error.
func (s *Server) setReadDeadline(c echo.Context, t time.Time) {
	err := http.NewResponseController(c.Response().Writer).SetReadDeadline(t)
	if err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.log.Debug("setting the read deadline", "request_id", requestIDOf(c), "err", err)
	}
}

// readBody enforces the media type and the body cap, then reads the body.
func (s *Server) readBody(c echo.Context) ([]byte, error) {
	if ct := c.Request().Header.Get(echo.HeaderContentType); ct != echo.MIMEApplicationJSON { // the usual spelling needs no parsing
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != echo.MIMEApplicationJSON {
			return nil, apierr.Errorf(apierr.CodeUnsupportedMediaType, "the body must be JSON with Content-Type: application/json")
		}
	}
	return s.readAll(c)
}

// readAll reads the request's body, at most BodyLimit bytes, into a buffer
// that grows as bytes arrive. The read deadline bodyDeadline set needs no
// clearing: net/http clears it when, the body read, it starts watching the
// connection for the client going away (TestStreamOutlivesBodyReadTimeout).
func (s *Server) readAll(c echo.Context) ([]byte, error) {
	r := c.Request()
	limit := s.cfg.BodyLimit
	if r.ContentLength > limit {
		return nil, tooLarge(limit)
	}
	body, err := readUpTo(r.Body, r.ContentLength, limit)
	switch {
	case errors.Is(err, errTooLarge):
		return nil, tooLarge(limit)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, apierr.Errorf(apierr.CodeBadRequest, "the body did not arrive within the gateway's body read time of %v", s.cfg.BodyReadTimeout).
			Suggest("send the whole body at once, right after the headers")
	case err != nil:
		return nil, apierr.Errorf(apierr.CodeBadRequest, "reading the body: %v", err)
	}
	return body, nil
}

var errTooLarge = errors.New("body over the limit")

// readUpTo reads r to its end. The buffer starts at no more than bodyStart
// bytes and grows as bytes arrive, up to size (the declared length, -1 when
// unknown) before more is seen; over limit bytes is errTooLarge. So what a
// body costs follows the bytes that came, not the length a client claimed.
func readUpTo(r io.Reader, size, limit int64) ([]byte, error) {
	start := int64(bodyStart)
	if size >= 0 {
		start = min(start, size+1) // +1: room to see the end without growing
	}
	buf := make([]byte, 0, start)
	for {
		if len(buf) == cap(buf) {
			next := 2 * int64(cap(buf))
			if size > int64(len(buf)) {
				next = min(next, size+1)
			}
			buf = slices.Grow(buf, int(max(next, bytes.MinRead))-len(buf))
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, errTooLarge
		}
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// withBody reads the body of a request for h (an http.Handler such as the
// MCP one, which reads its own) as readAll does, bounded in size and time,
// and hands it on in memory.
func (s *Server) withBody(h http.Handler) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.Body != nil && r.Body != http.NoBody {
			body, err := s.readAll(c)
			if err != nil {
				return err
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(c.Response(), r)
		return nil
	}
}

func tooLarge(limit int64) *apierr.Error {
	return apierr.Errorf(apierr.CodePayloadTooLarge, "the body is over the gateway's limit of %d bytes", limit).
		Suggest("send less context, e.g. a smaller selection or fewer package files")
}
