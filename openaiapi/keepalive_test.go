package openaiapi_test

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestKeepAlive: while the upstream is silent, a stream gets ": ping"
// comments, which SSE clients skip, and its frames are the same as without
// them; nothing follows the terminator.
func TestKeepAlive(t *testing.T) {
	release := make(chan struct{})
	frames := strings.SplitAfter(upstreamStream, "\n\n")
	gw := start(t, setup{keepAlive: time.Millisecond, upstream: handle(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, frames[0]+frames[1])
		http.NewResponseController(w).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		_, _ = io.WriteString(w, strings.Join(frames[2:], ""))
	})})
	resp, err := http.Post(gw.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"coder","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body strings.Builder
	r := bufio.NewReader(resp.Body)
	for released := false; ; {
		line, err := r.ReadString('\n')
		body.WriteString(line)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if line == ": ping\n" && !released {
			close(release)
			released = true
		}
	}
	got := body.String()
	if !strings.Contains(got, ": ping\n\n") || !strings.HasSuffix(got, "data: [DONE]\n\n") {
		t.Fatalf("no ping, or something after the terminator:\n%s", got)
	}
	want := []string{
		chunk("coder", `{"role":"assistant","content":""}`, "null"),
		chunk("coder", `{"content":"It <prints> "}`, "null"),
		chunk("coder", `{"content":"3."}`, "null"),
		chunk("coder", `{}`, "stop"),
		"data: [DONE]",
	}
	var frameEvents []string
	for _, e := range events(t, got) {
		if e != ": ping" {
			frameEvents = append(frameEvents, e)
		}
	}
	if strings.Join(frameEvents, "\n\n") != strings.Join(want, "\n\n") {
		t.Errorf("frames without the pings\n%s\nwant\n%s", strings.Join(frameEvents, "\n\n"), strings.Join(want, "\n\n"))
	}
}
