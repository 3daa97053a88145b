package server_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/agentgw/agentgw/server"
)

// TestMetricsRoute: Config.Metrics is served at GET /metrics, behind the
// inbound auth; without it there is no such route.
func TestMetricsRoute(t *testing.T) {
	t.Parallel()
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = io.WriteString(w, "up 1\n")
	})
	withMetrics := withServer(func(c *server.Config) { c.Metrics = metrics })
	tests := []struct {
		name   string
		opts   []option
		header []string
		status int
		body   string
	}{
		{"open", []option{withMetrics}, nil, 200, "up 1\n"},
		{"no token", []option{withMetrics, withAuthTokens("gw-token")}, nil, 401, ""},
		{"token", []option{withMetrics, withAuthTokens("gw-token")}, []string{"Authorization", "Bearer gw-token"}, 200, "up 1\n"},
		{"off", nil, nil, 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gw := newGateway(t, tt.opts...)
			req, err := http.NewRequest("GET", gw.URL+"/metrics", nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < len(tt.header); i += 2 {
				req.Header.Set(tt.header[i], tt.header[i+1])
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status || tt.status == 200 && string(body) != tt.body {
				t.Errorf("GET /metrics = %d %q, want %d %q", resp.StatusCode, body, tt.status, tt.body)
			}
		})
	}
}
