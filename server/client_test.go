package server_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/server"
	"github.com/agentgw/agentgw/sse"
)

// response is a finished HTTP exchange.
type response struct {
	status int
	header http.Header
	body   []byte
}

// post sends body to url as JSON with the extra header pairs and reads the
// whole answer.
func post(t testing.TB, url, body string, header ...string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return do(t, req)
}

// get fetches url.
func get(t testing.TB, url string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return do(t, req)
}

func do(t testing.TB, req *http.Request) response {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer of %s %s: %v", req.Method, req.URL, err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: body}
}

// chunk is a chat.completion.chunk as a plugin reads it.
type chunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage json.RawMessage `json:"usage"`
}

// content is the chunk's text.
func (c chunk) content() string {
	var s string
	for _, ch := range c.Choices {
		s += ch.Delta.Content
	}
	return s
}

// isEnd reports whether the chunk is the end chunk: one choice with an
// empty delta and the finish_reason given.
func (c chunk) isEnd(reason string) bool {
	return len(c.Choices) == 1 && c.Choices[0].FinishReason != nil && *c.Choices[0].FinishReason == reason &&
		c.Choices[0].Delta.Content == "" && c.Choices[0].Delta.Role == ""
}

// frame is one event of a response stream, classified.
type frame struct {
	kind   string // "chunk", "action", "error", "done" or "other"
	data   string
	chunk  chunk
	action struct {
		Action string          `json:"action"`
		State  json.RawMessage `json:"state"`
		Data   json.RawMessage `json:"data"`
	}
	err emit.ErrorFrameData
}

// stream is a parsed response stream.
type stream struct {
	frames []frame
}

// parseStream reads body with the real SSE parser.
func parseStream(t testing.TB, body []byte) stream {
	t.Helper()
	var s stream
	rd := sse.NewReader(bytes.NewReader(body))
	for {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return s
		}
		if err != nil {
			t.Fatalf("reading the stream: %v\n%s", err, body)
		}
		s.frames = append(s.frames, classify(t, ev.Name, string(ev.Data)))
	}
}

func classify(t testing.TB, name, data string) frame {
	t.Helper()
	f := frame{data: data}
	var err error
	switch {
	case name == emit.EventAction:
		f.kind = "action"
		err = json.Unmarshal([]byte(data), &f.action)
	case name == emit.EventError:
		f.kind = "error"
		err = json.Unmarshal([]byte(data), &f.err)
	case name != "":
		f.kind = "other"
	case data == "[DONE]" || data == "[Done]":
		f.kind = "done"
	default:
		f.kind = "chunk"
		err = json.Unmarshal([]byte(data), &f.chunk)
	}
	if err != nil {
		t.Fatalf("frame %q %q: %v", name, data, err)
	}
	return f
}

// kinds lists the frames' kinds.
func (s stream) kinds() []string {
	out := make([]string, len(s.frames))
	for i, f := range s.frames {
		out[i] = f.kind
	}
	return out
}

// text is the content of all chunks.
func (s stream) text() string {
	var b strings.Builder
	for _, f := range s.frames {
		if f.kind == "chunk" {
			b.WriteString(f.chunk.content())
		}
	}
	return b.String()
}

// of returns the frames of one kind.
func (s stream) of(kind string) []frame {
	var out []frame
	for _, f := range s.frames {
		if f.kind == kind {
			out = append(out, f)
		}
	}
	return out
}

// readStream checks that r is a 200 event stream with the SSE headers that
// ends with the end chunk (finish_reason "stop", or "error" when the stream
// has an error frame) and exactly one terminator, nothing after it, and
// returns it parsed.
func readStream(t testing.TB, r response, terminator string) stream {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d, want 200; body:\n%s", r.status, r.body)
	}
	for k, v := range map[string]string{
		"Content-Type": "text/event-stream", "Cache-Control": "no-cache",
		"Connection": "keep-alive", "X-Accel-Buffering": "no",
	} {
		if got := r.header.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	end := "data: " + terminator + "\n\n"
	if !bytes.HasSuffix(r.body, []byte(end)) {
		t.Fatalf("the stream does not end with %q:\n%s", end, r.body)
	}
	if n := bytes.Count(r.body, []byte("data: [D")); n != 1 {
		t.Fatalf("%d terminators, want exactly 1:\n%s", n, r.body)
	}
	s := parseStream(t, r.body)
	n := len(s.frames)
	if n < 2 || s.frames[n-1].kind != "done" || s.frames[n-1].data != terminator {
		t.Fatalf("the last frame is not the terminator %s: %v\n%s", terminator, s.kinds(), r.body)
	}
	// The end chunk has the finish reason: "error" after an error frame,
	// else the upstream's ("stop", "length", "tool_calls"), "stop" when no
	// model answered; and it is the only chunk with one.
	reasons := []string{"stop", "length", "tool_calls", "content_filter"}
	if len(s.of("error")) > 0 {
		reasons = []string{"error"}
	}
	if last := s.frames[n-2]; last.kind != "chunk" || !slices.ContainsFunc(reasons, last.chunk.isEnd) {
		t.Fatalf("the frame before the terminator is not the end chunk with a finish_reason of %v: %q", reasons, last.data)
	}
	for _, f := range s.frames[:n-2] {
		if f.kind == "chunk" && len(f.chunk.Choices) > 0 && f.chunk.Choices[0].FinishReason != nil {
			t.Fatalf("chunk %s has a finish reason before the end chunk:\n%s", f.data, r.body)
		}
	}
	return s
}

// errorResponse checks r is an ERROR_RESPONSE with status and code and
// returns it.
func errorResponse(t testing.TB, r response, status int, code string) server.ErrorContent {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body: %s", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	var e struct {
		Type    string          `json:"type"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(r.body, &e); err != nil {
		t.Fatalf("not JSON: %v: %s", err, r.body)
	}
	var c server.ErrorContent
	if err := json.Unmarshal(e.Content, &c); err != nil {
		t.Fatalf("content: %v: %s", err, r.body)
	}
	if e.Type != "ERROR_RESPONSE" || c.ErrorCode != code {
		t.Fatalf("got type %q code %q, want ERROR_RESPONSE %q: %s", e.Type, c.ErrorCode, code, r.body)
	}
	checkErrorShape(t, e.Content, c)
	return c
}

// checkErrorShape checks every member of the seed-000 error content is
// there and filled.
func checkErrorShape(t testing.TB, raw json.RawMessage, c server.ErrorContent) {
	t.Helper()
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	for _, k := range []string{"errorCode", "message", "details", "source", "recoverable", "suggestedAction"} {
		if _, ok := m[k]; !ok {
			t.Errorf("content has no %q: %s", k, raw)
		}
	}
	if c.Message == "" || c.SuggestedAction == "" || c.Details.RequestID == "" || c.Details.Timestamp == "" {
		t.Errorf("empty message, requestId or timestamp: %s", raw)
	}
	if _, err := time.Parse(time.RFC3339Nano, c.Details.Timestamp); err != nil {
		t.Errorf("timestamp: %v", err)
	}
	if c.Source != apierr.SourceClient && c.Source != apierr.SourceServer {
		t.Errorf("source %q", c.Source)
	}
}

// sprintf is fmt.Sprintf.
func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
