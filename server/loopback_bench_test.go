package server_test

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"testing"

	"github.com/agentgw/agentgw/internal/cputime"
	"github.com/agentgw/agentgw/llm"
)

// BenchmarkLoopback compares, in one process and over real loopback
// sockets, a bare httputil.ReverseProxy (FlushInterval -1) and the gateway
// relaying the same stream from a fake upstream: 20 content chunks flushed
// one by one, a stop chunk, a usage chunk and [DONE], to 50 concurrent
// clients. The proxy forwards a 2.4 KB chat request; the gateway decodes
// the plugin's 3.6 KB request (bench/agents, as in bench/), renders the
// prompt and calls the upstream itself. ns/op is the machine's time per
// stream for each path with the client and the upstream in the same
// process, the in-process counterpart of the bench/ harness's saturation
// scenario, and cpu-µs/op the process's CPU time per stream (on Linux),
// which a busy host disturbs less: compare the two sub-benchmarks of one
// run.
func BenchmarkLoopback(b *testing.B) {
	chunks, tail := benchStream()
	// A minimal handler rather than llmtest: the fake must cost nothing
	// per request (llmtest records each request), as the proxy's does not.
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		for _, c := range chunks {
			_, _ = w.Write(c)
			f.Flush()
		}
		_, _ = w.Write(tail)
	}))
	defer up.Close()
	upURL, _ := url.Parse(up.URL)

	proxy := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(upURL) },
		FlushInterval: -1,
		Transport:     &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 256},
	}
	gw := benchGateway(b, llm.Config{BaseURL: up.URL})

	chat, err1 := os.ReadFile("testdata/bench_chat.json")
	plugin, err2 := os.ReadFile("testdata/bench_request.json")
	if err1 != nil || err2 != nil {
		b.Fatal(err1, err2)
	}
	b.Run("proxy", func(b *testing.B) { benchLoopback(b, proxy, "/chat/completions", chat) })
	b.Run("agentgw", func(b *testing.B) { benchLoopback(b, gw, "/agents/bench", plugin) })
}

func benchLoopback(b *testing.B, h http.Handler, path string, body []byte) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	c := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 256}}
	b.SetParallelism(25) // 50 clients on 2 cores
	b.ReportAllocs()
	cpu0 := cputime.Process()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+path, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := c.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			sc := bufio.NewScanner(resp.Body)
			done := false
			for sc.Scan() {
				done = done || bytes.Equal(sc.Bytes(), []byte("data: [DONE]"))
			}
			_ = resp.Body.Close()
			if !done {
				b.Error("the stream did not end with [DONE]")
				return
			}
		}
	})
	// CPU time, unlike wall time, does not count what a busy host's other
	// guests take (steal time).
	if cpu := cputime.Process() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
	}
}
