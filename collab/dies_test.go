package collab

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentgw/agentgw/remote"
)

// TestAskRemoteDies: an ask holds no lease of its own in the database: it
// lives on its connection to the asked agent's gateway, which says it is
// alive with its stream's keep-alive pings. When that gateway dies in the
// middle of the answer — killed (its connection closes) or gone silent
// (a host lost: no byte, no ping, for the idle timeout, the ask's
// heartbeat) — the ask ends at once with an error response, not at its
// own 30 s timeout. The 10 s bound is a guard, far from both the
// expected instant and the timeout.
func TestAskRemoteDies(t *testing.T) {
	for _, tt := range []struct {
		name string
		code string
		die  func(w http.ResponseWriter, r *http.Request)
	}{
		{"killed", "UPSTREAM_ERROR", func(w http.ResponseWriter, _ *http.Request) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			_ = conn.Close() // as the kernel closes a killed process's sockets
		}},
		{"silent", "UPSTREAM_TIMEOUT", func(_ http.ResponseWriter, r *http.Request) {
			<-r.Context().Done() // no byte, no ping: a host lost
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write([]byte("data: " + string(chunk("thinking\n")) + "\n\n"))
				_ = http.NewResponseController(w).Flush()
				tt.die(w, r)
			}))
			defer srv.Close()
			fw, err := remote.New(remote.Config{IdleTimeout: 600 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			a := New(Config{Forwarder: fw, Remote: func(agent string) (string, bool) { return srv.URL, agent == "far" }})
			start := time.Now()
			resp, msgs, err := a.Ask(t.Context(), "lead", "far", "q", Options{Timeout: 30 * time.Second})
			took := time.Since(start)
			if err != nil {
				t.Fatalf("Ask: %v (exchange %v)", err, types(msgs))
			}
			c, _ := resp.Response()
			if c.Status != StatusError || c.Error == nil || c.Error.Code != tt.code {
				t.Errorf("response %+v %+v, want an error %s", c, c.Error, tt.code)
			}
			if took > 10*time.Second {
				t.Errorf("the ask ended %s after it began", took)
			}
			t.Logf("ended %s after it began: %s", took.Round(time.Millisecond), c.Error.Message)
		})
	}
}
