package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/llm/llmtest"
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

// scrape returns the series of /metrics at url whose metric is one of
// names, a line each as the gateway wrote them ("name{labels} value"),
// without the histograms' _bucket and _sum lines (times), in order.
func scrape(t *testing.T, url string, names ...string) string {
	t.Helper()
	status, body := get(t, url)
	if status != 200 {
		t.Fatalf("GET %s: %d", url, status)
	}
	var out []string
	for line := range strings.SplitSeq(body, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, _, _ := strings.Cut(line, " ")
		name, _, _ = strings.Cut(name, "{")
		if strings.HasSuffix(name, "_bucket") || strings.HasSuffix(name, "_sum") {
			continue
		}
		for _, n := range names {
			if name == n || name == n+"_count" {
				out = append(out, line)
				break
			}
		}
	}
	return strings.Join(out, "\n") + "\n"
}

// metricsModel is deployModel, except that it answers 500 to a question
// that says "fail", and that its answer after the tool reports its usage
// (the call that asks for the tool does not: the gateway estimates it).
func metricsModel(r llmtest.Request) llmtest.Reply {
	switch {
	case strings.Contains(string(r.Body), "please fail"):
		return llmtest.Error(http.StatusInternalServerError, "the model broke")
	case strings.Contains(string(r.Body), `"role":"tool"`):
		return llmtest.Answer{Text: []string{"Deployed."}, Usage: &llmtest.Usage{PromptTokens: 70, CompletionTokens: 9, TotalTokens: 79}}.Reply()
	}
	return deployModel(r)
}

// TestMetricsEndToEnd: through a loopback gateway and a fake model, a
// consent pause, the tool call its confirmation runs and a model that
// fails show in /metrics as exactly these series.
func TestMetricsEndToEnd(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "agents/deployer.yaml", deployerAgent)
	up := llmtest.New(t, llmtest.Respond(metricsModel))
	cfg := testConfig(t, up.URL())
	cfg.Agents = []string{filepath.Join(dir, "agents")}
	cfg.Upstream.Retries = 0
	base := startGateway(t, cfg, map[string]string{"PATH": os.Getenv("PATH")})
	metrics := base + "/metrics"

	consent := ask(t, base+"/agents/deployer", `{"contextVariables":[{"name":"userInputPrompt","value":"ship it"}]}`).only(t)
	if consent.Action != "confirm" {
		t.Fatalf("no consent: %+v", consent)
	}
	if got, want := scrape(t, metrics, "agentgw_paused_runs", "agentgw_pauses_total"), `agentgw_paused_runs 1
agentgw_pauses_total{kind="consent"} 1
`; got != want {
		t.Errorf("paused:\n%s\nwant:\n%s", got, want)
	}
	feedback := `{"action":{"action":"confirm","state":` + string(consent.State) + `,"accepted":true}}`
	if resumed := ask(t, base+"/agents/deployer", feedback); resumed.errorFrame() != nil {
		t.Fatalf("resumed: %+v", resumed.errorFrame())
	}
	failed := ask(t, base+"/agents/deployer", `{"contextVariables":[{"name":"userInputPrompt","value":"please fail"}]}`)
	if failed.errorFrame() == nil {
		t.Fatalf("no error frame: %q", failed.text)
	}

	got := scrape(t, metrics, "agentgw_requests_total", "agentgw_request_duration_seconds", "agentgw_request_first_byte_seconds",
		"agentgw_open_streams", "agentgw_stream_errors_total", "agentgw_upstream_requests_total", "agentgw_upstream_retries_total",
		"agentgw_upstream_first_byte_seconds", "agentgw_upstream_duration_seconds", "agentgw_tokens_total",
		"agentgw_tool_calls_total", "agentgw_tool_call_duration_seconds", "agentgw_pauses_total", "agentgw_paused_runs",
		"agentgw_store_errors_total")
	want, err := os.ReadFile(filepath.Join("testdata", "metrics", "e2e.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("/metrics:\n%s\nwant (testdata/metrics/e2e.txt):\n%s", got, want)
	}
}
