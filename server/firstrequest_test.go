package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/server"
)

// TestFirstRequestWaitsLikeTheNext: a connection that is opened and stays
// silent (a client's pooled spare, a browser's preconnect) is waited on as
// an idle kept-alive one is, for IdleTimeout, not closed when
// ReadHeaderTimeout has passed since the accept (F9 of bench/soak/README.md:
// the client's POST on it got EOF); once its request starts, its headers
// are bounded by ReadHeaderTimeout (TestReadHeaderTimeout), and a silent
// connection is still closed after IdleTimeout.
func TestFirstRequestWaitsLikeTheNext(t *testing.T) {
	t.Parallel()
	const header = 20 * time.Millisecond
	tests := []struct {
		name    string
		idle    time.Duration
		silence time.Duration // before the request is sent; 0: none is sent
		want    string        // the first line read, "" for the connection closed unanswered
	}{
		{"a request after 10 header timeouts of silence", time.Minute, 10 * header, "HTTP/1.1 200 OK\r\n"},
		{"a request at once", time.Minute, -1, "HTTP/1.1 200 OK\r\n"},
		{"silent past the idle timeout", 50 * time.Millisecond, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			addr, _ := serveLoopback(t, withServer(func(c *server.Config) {
				c.ReadHeaderTimeout, c.IdleTimeout = header, tc.idle
			}))
			c := dialRaw(t, addr)
			if tc.silence != 0 {
				time.Sleep(max(tc.silence, 0))
				if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: gw\r\n\r\n"); err != nil {
					t.Fatal(err)
				}
			}
			line, err := bufio.NewReader(c).ReadString('\n')
			if line != tc.want || tc.want == "" && !errors.Is(err, io.EOF) {
				t.Errorf("read %q, %v; want %q", line, err, tc.want)
			}
		})
	}
}

// TestPOSTOnASilentConnection is F9 as the soak's client met it: Go's
// Transport sends a POST on a connection opened a while ago and silent
// since (here handed to it by its dialer; in the soak, a spare it had
// dialed for an earlier request that got a pooled connection first). The
// gateway closed that connection ReadHeaderTimeout after accepting it, and
// the POST failed with EOF, which the Transport does not retry (a POST is
// not replayable); now it gets its answer.
func TestPOSTOnASilentConnection(t *testing.T) {
	t.Parallel()
	const header = 20 * time.Millisecond
	addr, _ := serveLoopback(t, withServer(func(c *server.Config) { c.ReadHeaderTimeout = header }))
	spare := dialRaw(t, addr)
	time.Sleep(10 * header)
	dials := 0
	tr := &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) {
		dials++
		return spare, nil
	}}
	defer tr.CloseIdleConnections()
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/contexts", strings.NewReader(`{"contextId":"f9"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatalf("POST on the silent connection: %v", err)
	}
	defer res.Body.Close()
	var body server.ErrorResponse
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	// This gateway keeps no contexts: the answer is a NOT_FOUND, and it
	// came on the one connection.
	if dials != 1 || res.StatusCode != http.StatusNotFound || body.Content.ErrorCode != apierr.CodeNotFound {
		t.Errorf("%d dials, %d %s; want 404 NOT_FOUND on the one connection", dials, res.StatusCode, body.Content.ErrorCode)
	}
}

// TestPOSTsThroughAPoolUnderLoad is F9 end to end, without a hand-made
// connection: bursts of POSTs through one Go Transport (its pool, its spare
// dials) on a starved CPU (GOMAXPROCS 1 and busy goroutines, as the soak's
// client with 2,000 streams on a loaded machine), with pauses about as long
// as the header timeout between them. Before the fix the gateway closed the
// spares it had never got a request on, and a POST the Transport sent on
// one before its read loop saw the close got EOF (on main's Serve, two
// runs: 230 and 164 of 4,800 POSTs got EOF, 19 and 8 a reset, 7 and 3
// "server closed idle connection"); none may fail now.
// Not parallel: it sets GOMAXPROCS.
func TestPOSTsThroughAPoolUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("5 s of load")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const header = 100 * time.Millisecond
	addr, _ := serveLoopback(t, withServer(func(c *server.Config) { c.ReadHeaderTimeout = header }))
	var dials atomic.Int64
	d := &net.Dialer{}
	tr := &http.Transport{MaxIdleConns: 1000, MaxIdleConnsPerHost: 1000, IdleConnTimeout: 30 * time.Second,
		DialContext: func(ctx context.Context, network, a string) (net.Conn, error) {
			dials.Add(1)
			return d.DialContext(ctx, network, a)
		}}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	end := time.Now().Add(5 * time.Second)
	var busy sync.WaitGroup
	for range 3 {
		busy.Go(func() {
			for time.Now().Before(end) {
				for i := 0; i < 100000; i++ {
					_ = i * i
				}
			}
		})
	}
	defer busy.Wait()
	var sent atomic.Int64
	var mu sync.Mutex
	failed := map[string]int{} // by the error's last words
	for round := 0; time.Now().Before(end); round++ {
		n := 20
		if round%2 == 0 {
			n = 300
		}
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				for range 5 {
					sent.Add(1)
					res, err := c.Post("http://"+addr+"/contexts", "application/json", strings.NewReader(`{"contextId":"f9"}`))
					if err != nil {
						mu.Lock()
						failed[err.Error()[strings.LastIndex(err.Error(), ":")+1:]]++
						mu.Unlock()
						continue
					}
					_, _ = io.Copy(io.Discard, res.Body)
					_ = res.Body.Close()
				}
			})
		}
		wg.Wait()
		time.Sleep(header - 10*time.Millisecond + time.Duration(round%3)*10*time.Millisecond)
	}
	t.Logf("%d POSTs, %d connections dialed, failed: %v", sent.Load(), dials.Load(), failed)
	if len(failed) > 0 {
		t.Errorf("POSTs failed: %v", failed)
	}
}
