package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// oldHeaderTimeout is the ReadHeaderTimeout the mock had until F13: a new
// connection's first request had to arrive this soon after the accept.
const oldHeaderTimeout = 10 * time.Second

// TestFirstRequestOnAnOldConnection is F13 (bench/soak/README.md): a client
// that dialed a connection and sends its first request later than the old
// header timeout (as the gateway's Transport does with the spare connections
// it pools) gets its answer. Before the fix the mock had closed the
// connection (EOF, or a reset) or, as the timeout expired, answered "400
// Bad Request".
func TestFirstRequestOnAnOldConnection(t *testing.T) {
	if testing.Short() {
		t.Skip("waits past the old header timeout (11 s)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(newMock(spec{chunks: 2, size: 30}), 100)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	time.Sleep(oldHeaderTimeout + time.Second)
	body := `{"model":"m","messages":[],"stream":true}`
	req := fmt.Sprintf("POST /chat/completions HTTP/1.1\r\nHost: mock\r\nContent-Type: application/json\r\n"+
		"X-Mock-Usage: false\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatalf("writing the request: %v", err)
	}
	if err := c.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v (the mock closed the connection)", err)
	}
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the body: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, body %q; want 200", resp.StatusCode, got)
	}
	frames := strings.SplitAfter(string(got), "\n\n")
	if len(frames) != 5 { // 2 content chunks, stop, [DONE], and "" after the last
		t.Fatalf("got %d frames %q, want 2 content chunks, the stop chunk and [DONE]", len(frames)-1, got)
	}
	if last := frames[len(frames)-2]; last != "data: [DONE]\n\n" {
		t.Fatalf("last frame %q, want %q", last, "data: [DONE]\n\n")
	}
}
