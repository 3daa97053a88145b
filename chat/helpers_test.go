package chat

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// chatRequest is an agent request as chat sent it.
type chatRequest struct {
	Agent            string `json:"agent"`
	Command          string `json:"command"`
	Model            string `json:"model"`
	ContextVariables []struct {
		Name  string          `json:"name"`
		Value json.RawMessage `json:"value"`
	} `json:"contextVariables"`
	Header http.Header `json:"-"`
	// Members are the body's members as sent.
	Members map[string]json.RawMessage `json:"-"`
}

// names lists the context variables in request order.
func (r chatRequest) names() []string {
	var out []string
	for _, v := range r.ContextVariables {
		out = append(out, v.Name)
	}
	return out
}

// value decodes the context variable name into v; false when it is absent.
func (r chatRequest) value(t *testing.T, name string, v any) bool {
	t.Helper()
	for _, cv := range r.ContextVariables {
		if cv.Name == name {
			if err := json.Unmarshal(cv.Value, v); err != nil {
				t.Fatalf("context variable %s: %v", name, err)
			}
			return true
		}
	}
	return false
}

// recorder keeps the agent requests (POST bodies) it saw.
type recorder struct {
	mu       sync.Mutex
	requests []chatRequest
}

// record reads r's body, keeps it and puts it back.
func (rec *recorder) record(t *testing.T, r *http.Request) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		t.Errorf("reading the request: %v", err)
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	var cr chatRequest
	if err := json.Unmarshal(data, &cr); err != nil {
		t.Errorf("chat sent invalid JSON %q: %v", data, err)
	}
	if err := json.Unmarshal(data, &cr.Members); err != nil {
		t.Errorf("chat sent a body that is not an object %q: %v", data, err)
	}
	cr.Header = r.Header.Clone()
	rec.mu.Lock()
	rec.requests = append(rec.requests, cr)
	rec.mu.Unlock()
}

// last returns the last request, failing when there is none.
func (rec *recorder) last(t *testing.T) chatRequest {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.requests) == 0 {
		t.Fatal("chat sent no agent request")
	}
	return rec.requests[len(rec.requests)-1]
}

// all returns the requests so far.
func (rec *recorder) all() []chatRequest {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]chatRequest(nil), rec.requests...)
}

// count returns how many requests were recorded.
func (rec *recorder) count() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return len(rec.requests)
}

// newCannedGateway answers GET /agents/{name} with definition and every
// POST with stream, recording the POSTs.
func newCannedGateway(t *testing.T, definition, stream string) (string, *recorder) {
	return newFakeGateway(t, definition, func(int) (string, bool) { return stream, true })
}

// newScriptedGateway answers GET /agents/{name} with definition and the
// n-th POST with streams[n], recording the POSTs; a POST beyond the script
// fails the test.
func newScriptedGateway(t *testing.T, definition string, streams ...string) (string, *recorder) {
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
func newFakeGateway(t *testing.T, definition string, answer func(n int) (string, bool)) (string, *recorder) {
	rec := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, definition)
			return
		}
		rec.record(t, r)
		stream, ok := answer(rec.count() - 1)
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
	code = Main(args, func(string) string { return "" }, strings.NewReader(stdin), &out, &errOut)
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
