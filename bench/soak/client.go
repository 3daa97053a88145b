package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// outcome is how one stream (or API call) ended.
type outcome int

const (
	// okStream: the whole answer, one stop chunk, one terminator.
	okStream outcome = iota
	// errFrame: one in-stream copilot_error, then the end frames and one
	// terminator: what a client may get while a store or a peer is down.
	errFrame
	// refused: an error answer before any stream (HTTP status, ERROR_RESPONSE).
	refused
	// cutByKill: the stream broke off without a terminator while the
	// replica serving it was killed: nobody is left to send the terminator.
	cutByKill
	// broken: anything else, always a failure: a stream cut off by a
	// process that was not killed, two error frames, frames after the
	// terminator, a missing stop chunk, a connection refused by a replica
	// that was not down.
	broken
	numOutcomes
)

var outcomeNames = [numOutcomes]string{"ok", "error frame", "refused", "cut by kill", "broken"}

// result is one stream as the client saw it.
type result struct {
	outcome outcome
	code    string            // the error code of an error frame or a refusal
	detail  string            // what was wrong, for broken
	text    string            // the content the answer carried
	actions []json.RawMessage // copilot_action frames' data
	dial    bool              // the connection was never made: nothing was sent
	// firstUseAge is how long the connection the request went on had been
	// open, unused, when this request was its first (a spare the
	// Transport dialed for a request that got a pooled connection first);
	// 0 on a connection used before.
	firstUseAge time.Duration
}

// gateway is one agentgw process the clients talk to, with a generation
// that moves each time it is killed, so a stream that broke off can tell
// whether its replica died under it.
type gateway struct {
	name string
	url  string        // http://host:port
	gen  atomic.Uint64 // moves when the harness kills it
	down atomic.Bool   // true while it is killed and not yet back
}

// sendStream posts body to the agent endpoint path on gw and reads the SSE
// answer to its end, checking its frames.
func sendStream(ctx context.Context, c *http.Client, gw *gateway, path string, body any, hdr http.Header) result {
	gen := gw.gen.Load()
	b, err := json.Marshal(body)
	if err != nil {
		return result{outcome: broken, detail: "marshal: " + err.Error()}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, gw.url+path, bytes.NewReader(b))
	if err != nil {
		return result{outcome: broken, detail: err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header[k] = v
	}
	// The request id the gateway logs it under (a broken stream names it,
	// its replica and the time, to find it in the kept logs).
	rid := newUUID()
	req.Header.Set("X-Request-Id", rid)
	var cs connSeen
	req = req.WithContext(httptrace.WithClientTrace(ctx, cs.trace()))
	res := exchange(ctx, c, req, gw, gen)
	res.firstUseAge = cs.firstUseAge()
	if res.outcome == broken {
		res.detail = fmt.Sprintf("%s request %s at %s on %s: %s", gw.name, rid, time.Now().UTC().Format("15:04:05.000"), &cs, res.detail)
	}
	return res
}

// connSeen is what a request's trace saw of the connection it was sent
// on, to tell a broken stream's connection apart: new or pooled, how old,
// how many requests it carried, when the request was written.
type connSeen struct {
	mu      sync.Mutex
	got     bool
	info    httptrace.GotConnInfo
	local   string
	age     time.Duration // since the connection was dialed
	use     int64         // this request is the use-th traced one on it
	unused  bool          // nothing was written on the connection before this request
	gotAt   time.Time
	wroteAt time.Time
}

// trace records the connection a request gets and when it is written.
func (s *connSeen) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.got, s.info, s.gotAt = true, i, time.Now()
			s.local = i.Conn.LocalAddr().String()
			if tc, ok := i.Conn.(*tracedConn); ok {
				s.age, s.use, s.unused = time.Since(tc.dialed), tc.uses.Add(1), !tc.wrote.Load()
			}
		},
		WroteRequest: func(httptrace.WroteRequestInfo) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.wroteAt = time.Now()
		},
	}
}

// firstUseAge is the connection's age when this request was its first, 0
// when it was used before (or is unknown).
func (s *connSeen) firstUseAge() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.unused || !s.info.Reused {
		return 0 // used before, or dialed for this request: not a spare
	}
	return s.age
}

// String describes the connection for a broken stream's detail.
func (s *connSeen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.got {
		return "no connection"
	}
	wrote := "request not written"
	if !s.wroteAt.IsZero() {
		wrote = fmt.Sprintf("written %s after getting it, %s before the error", s.wroteAt.Sub(s.gotAt).Round(time.Millisecond), time.Since(s.wroteAt).Round(time.Millisecond))
	}
	return fmt.Sprintf("connection %s (pooled %t, idle %s, dialed %s before, unused before %t, traced request %d on it; %s)",
		s.local, s.info.Reused, s.info.IdleTime.Round(time.Millisecond), s.age.Round(time.Millisecond), s.unused, s.use, wrote)
}

// exchange sends req and reads the answer, checking its frames.
func exchange(ctx context.Context, c *http.Client, req *http.Request, gw *gateway, gen uint64) result {
	resp, err := c.Do(req)
	if err != nil {
		res := classifyCut(ctx, gw, gen, "request: "+err.Error())
		res.dial = isDialError(err)
		return res
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return result{outcome: refused, code: errorCode(data, resp.StatusCode), detail: string(data)}
	}
	return readStream(ctx, resp.Body, gw, gen)
}

// classifyCut decides what a failed read or request was: the context
// ending, the replica having been killed since gen (or being down), or a
// broken stream.
func classifyCut(ctx context.Context, gw *gateway, gen uint64, detail string) result {
	if ctx.Err() != nil {
		return result{outcome: cutByKill, detail: "harness stopping: " + detail}
	}
	if gw.gen.Load() != gen || gw.down.Load() {
		return result{outcome: cutByKill, detail: detail}
	}
	return result{outcome: broken, detail: detail}
}

// errorCode reads content.errorCode of an ERROR_RESPONSE body.
func errorCode(data []byte, status int) string {
	var e struct {
		Content struct {
			ErrorCode string `json:"errorCode"`
		} `json:"content"`
	}
	if json.Unmarshal(data, &e) == nil && e.Content.ErrorCode != "" {
		return e.Content.ErrorCode
	}
	return fmt.Sprintf("HTTP %d", status)
}

// readStream reads frames until the terminator and checks the protocol's
// end: at most one error frame, right before the end frames; exactly one
// gateway stop chunk whose finish_reason says whether an error came; one
// terminator, and nothing after it.
func readStream(ctx context.Context, r io.Reader, gw *gateway, gen uint64) result {
	br := bufio.NewReaderSize(r, 16<<10)
	var (
		res       result
		event     string
		errFrames int
		finish    string // the last finish_reason seen
		text      strings.Builder
	)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				// A long frame: read the rest of it.
				rest, err2 := br.ReadString('\n')
				if err2 != nil {
					return classifyCut(ctx, gw, gen, fmt.Sprintf("reading the stream: %v", err2))
				}
				line = append(append([]byte(nil), line...), rest...)
			} else {
				return classifyCut(ctx, gw, gen, fmt.Sprintf("stream ended without the terminator: %v", err))
			}
		}
		l := strings.TrimRight(string(line), "\r\n")
		switch {
		case l == "":
			event = ""
		case strings.HasPrefix(l, ":"):
		case strings.HasPrefix(l, "event: "):
			event = l[len("event: "):]
		case strings.HasPrefix(l, "data: "):
			data := l[len("data: "):]
			switch {
			case data == "[DONE]":
				if extra, _ := io.ReadAll(br); len(bytes.TrimSpace(extra)) > 0 {
					return result{outcome: broken, detail: fmt.Sprintf("%d bytes after the terminator", len(extra))}
				}
				res.text = text.String()
				switch {
				case errFrames == 0 && finish == "stop":
					res.outcome = okStream
				case errFrames == 1 && finish == "error":
					res.outcome = errFrame
				default:
					res.outcome = broken
					res.detail = fmt.Sprintf("%d error frames, last finish_reason %q", errFrames, finish)
				}
				return res
			case event == "copilot_error":
				errFrames++
				var e struct {
					ErrorCode string `json:"errorCode"`
					Message   string `json:"message"`
				}
				_ = json.Unmarshal([]byte(data), &e)
				res.code, res.detail = e.ErrorCode, e.Message
			case event == "copilot_action":
				res.actions = append(res.actions, json.RawMessage(data))
			case event == "":
				if errFrames > 0 && !strings.Contains(data, `"finish_reason"`) {
					return result{outcome: broken, detail: "a text frame after the error frame"}
				}
				var ch struct {
					Choices []struct {
						Delta struct {
							Content string `json:"content"`
						} `json:"delta"`
						FinishReason *string `json:"finish_reason"`
					} `json:"choices"`
				}
				if err := json.Unmarshal([]byte(data), &ch); err != nil {
					return result{outcome: broken, detail: "a text frame that is not JSON: " + err.Error()}
				}
				for _, c := range ch.Choices {
					text.WriteString(c.Delta.Content)
					if c.FinishReason != nil {
						finish = *c.FinishReason
					}
				}
			}
		}
	}
}

// apiCall sends a JSON request to the gateway's API and decodes a 2xx
// answer into out (when not nil).
func apiCall(ctx context.Context, c *http.Client, method, url string, body, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, fmt.Errorf("marshal: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, fmt.Errorf("building %s %s: %w", method, url, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, fmt.Errorf("%s %s: reading the answer: %w", method, url, err)
	}
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, fmt.Errorf("%s %s: %s: %s", method, url, errorCode(data, resp.StatusCode), bytes.TrimSpace(data))
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, fmt.Errorf("%s %s: decoding the answer: %w", method, url, err)
		}
	}
	return resp.StatusCode, nil
}

// isDialError reports whether err is a refused or reset connection before
// anything was sent: the replica is not there.
func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// newHTTPClient is the clients' HTTP/1.1 client: one connection per
// concurrent stream, no compression, no overall timeout (streams are
// bounded by the scenario's context and the stream timeout). Its
// connections know when they were dialed and how many requests they
// carried (connSeen).
func newHTTPClient(conns int) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second}
	return &http.Client{Transport: &http.Transport{
		Proxy:               nil,
		DisableCompression:  true,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     clientIdle,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &tracedConn{Conn: c, dialed: time.Now()}, nil
		},
	}}
}

// clientIdle is how long the clients keep an idle connection pooled.
const clientIdle = 30 * time.Second

// tracedConn is a client connection with the time it was dialed, whether
// anything was written on it, and the number of traced requests (streams)
// sent on it.
type tracedConn struct {
	net.Conn
	dialed time.Time
	wrote  atomic.Bool
	uses   atomic.Int64
}

// Write notes that the connection carried a request.
func (c *tracedConn) Write(p []byte) (int, error) {
	c.wrote.Store(true)
	return c.Conn.Write(p)
}
