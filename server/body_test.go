package server_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/server"
)

// guard is how long a raw test connection may take at all: it only keeps
// a broken server from hanging the test, it is no assertion on timing.
const guard = 5 * time.Second

// dialRaw opens a plain TCP connection to addr, bounded by guard.
func dialRaw(t *testing.T, addr string) *net.TCPConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.SetDeadline(time.Now().Add(guard)); err != nil {
		t.Fatal(err)
	}
	return c.(*net.TCPConn)
}

// readErrorResponse reads one HTTP response from br and decodes its
// ERROR_RESPONSE body.
func readErrorResponse(t *testing.T, br *bufio.Reader) (*http.Response, server.ErrorContent) {
	t.Helper()
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("reading the response: %v", err)
	}
	defer res.Body.Close()
	var body server.ErrorResponse
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatalf("decoding the error body: %v", err)
	}
	return res, body.Content
}

// TestBodyReadTimeout: a client that sends the headers and part of the body,
// then stalls, gets a 400 naming the body read time once the configured
// time is over, and its connection is closed.
func TestBodyReadTimeout(t *testing.T) {
	t.Parallel()
	addr, _ := serveLoopback(t, withServer(func(c *server.Config) { c.BodyReadTimeout = 50 * time.Millisecond }))
	c := dialRaw(t, addr)
	const part = `{"agent":"hello",`
	if _, err := io.WriteString(c, "POST /agent HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"+part); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	res, e := readErrorResponse(t, br)
	if res.StatusCode != http.StatusBadRequest || e.ErrorCode != apierr.CodeBadRequest || !strings.Contains(e.Message, "body read time of 50ms") {
		t.Errorf("got %d %s %q, want 400 BAD_REQUEST naming the body read time", res.StatusCode, e.ErrorCode, e.Message)
	}
	if !res.Close {
		t.Error("the response does not say the connection closes")
	}
	if n, err := br.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		t.Errorf("after the response: read %d, %v; want the connection closed (EOF)", n, err)
	}
}

// TestReadHeaderTimeout: a client that stalls in its headers is
// disconnected after the configured time, without an answer.
func TestReadHeaderTimeout(t *testing.T) {
	t.Parallel()
	addr, _ := serveLoopback(t, withServer(func(c *server.Config) { c.ReadHeaderTimeout = 50 * time.Millisecond }))
	c := dialRaw(t, addr)
	if _, err := io.WriteString(c, "POST /agent HTTP/1.1\r\nHost: gw\r\n"); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		t.Errorf("read %d, %v; want the connection closed (EOF)", n, err)
	}
}

// TestStreamOutlivesBodyReadTimeout: the body's read deadline is cleared
// once the body is read, so a stream that lasts longer is not cut, and the
// connection serves a second request afterwards.
func TestStreamOutlivesBodyReadTimeout(t *testing.T) {
	t.Parallel()
	const timeout = 20 * time.Millisecond
	release := llmtest.NewGate()
	addr, _ := serveLoopback(t, withServer(func(c *server.Config) { c.BodyReadTimeout = timeout }),
		withUpstream(replayFirst(t, "normal.sse", 1, append([]llmtest.Event{llmtest.Wait(release)}, replayRest(t, "normal.sse", 1)...)...)))
	go func() {
		time.Sleep(10 * timeout) // well past the body's deadline
		release.Release()
	}()
	ref := newGateway(t, withUpstream(replay(t, "normal.sse")))
	want := readStream(t, post(t, ref.URL+"/agents/chat", `{"command":"templated"}`), "[DONE]").text()
	for i := range 2 { // the second on the same connection
		s := readStream(t, post(t, "http://"+addr+"/agents/chat", `{"command":"templated"}`), "[DONE]")
		if errs := s.of("error"); len(errs) > 0 || s.text() != want {
			t.Fatalf("request %d: the stream was cut: errors %v, text %q, want %q", i, errs, s.text(), want)
		}
	}
}

// TestDeclaredLengthNotAllocated: a huge declared Content-Length (under the
// limit) with a tiny body costs the bytes that came, not the length
// claimed: the gateway allocates far less than the claim while answering.
func TestDeclaredLengthNotAllocated(t *testing.T) { // not parallel: it measures the process's allocations
	addr, _ := serveLoopback(t)
	const claimed = 15 << 20 // under the 16 MiB default limit
	c := dialRaw(t, addr)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := io.WriteString(c, "POST /agent HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: 15728640\r\n\r\n"+`{"agent":"hello"}`); err != nil {
		t.Fatal(err)
	}
	if err := c.CloseWrite(); err != nil { // the body ends here: far short of its claim
		t.Fatal(err)
	}
	res, e := readErrorResponse(t, bufio.NewReader(c))
	runtime.ReadMemStats(&after)
	if res.StatusCode != http.StatusBadRequest || e.ErrorCode != apierr.CodeBadRequest {
		t.Errorf("got %d %s %q, want 400 BAD_REQUEST", res.StatusCode, e.ErrorCode, e.Message)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > claimed/8 {
		t.Errorf("answering a %d-byte body that claimed %d bytes allocated %d bytes", len(`{"agent":"hello"}`), claimed, got)
	}
}
