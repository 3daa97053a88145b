package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestDebugAddr(t *testing.T) {
	cfg := testConfig(t, "")
	cfg.DebugAddr = closedAddr(t)
	startGateway(t, cfg, nil)
	for path, want := range map[string]string{
		"/debug/vars":                    `"memstats"`,
		"/debug/pprof/goroutine?debug=1": "goroutine profile: total",
		"/debug/pprof/heap?gc=1&debug=1": "# HeapInuse",
	} {
		resp, err := http.Get("http://" + cfg.DebugAddr + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), want) {
			t.Errorf("%s: %d, body lacks %q", path, resp.StatusCode, want)
		}
	}
}
