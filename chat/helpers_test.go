package chat

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/agentgw/agentgw/chat/chattest"
)

// newCannedGateway answers GET /agents/{name} with definition and every
// POST with stream, recording the POSTs.
func newCannedGateway(t *testing.T, definition, stream string) (string, *chattest.Recorder) {
	return newFakeGateway(t, definition, func(int) (string, bool) { return stream, true })
}

// newScriptedGateway answers GET /agents/{name} with definition and the
// n-th POST with streams[n], recording the POSTs; a POST beyond the script
// fails the test.
func newScriptedGateway(t *testing.T, definition string, streams ...string) (string, *chattest.Recorder) {
	return newFakeGateway(t, definition, func(n int) (string, bool) {
		if n >= len(streams) {
			t.Errorf("POST %d, the script has %d answers", n+1, len(streams))
			return "", false
		}
		return streams[n], true
	})
}

// newFakeGateway answers GET /agents/{name} with definition and the n-th
// POST (from 0) with the stream answer gives, recording the POSTs; when
// answer has none, the POST fails with a 500.
func newFakeGateway(t *testing.T, definition string, answer func(n int) (string, bool)) (string, *chattest.Recorder) {
	rec := &chattest.Recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, definition)
			return
		}
		rec.Record(t, r)
		stream, ok := answer(rec.Count() - 1)
		if !ok {
			http.Error(w, "no more answers", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, stream)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, rec
}

// runChat runs `agentgw chat args...` with stdin as its input.
func runChat(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	fs := pflag.NewFlagSet("chat", pflag.ContinueOnError)
	c := NewCommand(fs, func(string) string { return "" })
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parsing %q: %v", args, err)
	}
	code = c.Run(fs.Args(), strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// jsonOf renders v for a failure message.
func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
