package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// get fetches url with the given header pairs and returns the status and
// body.
func get(t *testing.T, url string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// TestMetricsWhere: GET /metrics is on the main listener behind the
// inbound auth, or only on the debug listener when debugAddr is set, or
// nowhere with metrics.enabled false; it holds the runtime's metrics and
// the ones read from the database.
func TestMetricsWhere(t *testing.T) {
	const token = "gw-token"
	tests := []struct {
		name           string
		debug, enabled bool
		env            map[string]string
		// main and debug are the statuses of GET /metrics on each
		// listener, without and with the token; 0: no request.
		mainNoToken, mainToken, debugStatus int
	}{
		{"main listener", false, true, map[string]string{"AGENTGW_TOKENS": token}, 401, 200, 0},
		{"main listener, no auth", false, true, nil, 200, 200, 0},
		{"debug listener", true, true, map[string]string{"AGENTGW_TOKENS": token}, 401, 404, 200},
		{"off", true, false, nil, 404, 404, 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(t, "")
			cfg.Metrics.Enabled = tt.enabled
			if tt.debug {
				cfg.DebugAddr = closedAddr(t)
			}
			base := startGateway(t, cfg, tt.env)
			if s, _ := get(t, base+"/metrics"); s != tt.mainNoToken {
				t.Errorf("main /metrics without token: %d, want %d", s, tt.mainNoToken)
			}
			s, body := get(t, base+"/metrics", "Authorization", "Bearer "+token)
			if s != tt.mainToken {
				t.Errorf("main /metrics with token: %d, want %d", s, tt.mainToken)
			}
			if tt.debugStatus != 0 {
				s, body = get(t, "http://"+cfg.DebugAddr+"/metrics")
				if s != tt.debugStatus {
					t.Errorf("debug /metrics: %d, want %d", s, tt.debugStatus)
				}
			}
			if s != 200 {
				return
			}
			for _, want := range []string{
				"\nagentgw_paused_runs 0\n",
				"\nagentgw_handoff_queue_messages{status=\"QUEUED\"} 0\n",
				"\nagentgw_handoff_queue_oldest_seconds{status=\"RUNNING\"} 0\n",
				"\nagentgw_store_errors_total{source=\"scrape\"} 0\n",
				"\ngo_goroutines ",
				"\nprocess_resident_memory_bytes ",
			} {
				if !strings.Contains(body, want) {
					t.Errorf("/metrics lacks %q", want)
				}
			}
		})
	}
}
