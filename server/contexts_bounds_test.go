package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/conversation"
	"github.com/agentgw/agentgw/server"
	"github.com/agentgw/agentgw/store"
)

// withContextStore serves contexts bounded by cfg from st.
func withContextStore(st *store.Memory, cfg conversation.Config) option {
	return withServer(func(c *server.Config) { c.Contexts = conversation.NewStoreRepo(st, cfg) })
}

// deepJSON is an object n deep.
func deepJSON(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }

// TestContextsIntakeBounds: what POST and PATCH /contexts refuse, with
// the code a caller sees, and that a refused write leaves nothing behind:
// the context stays readable and deletable.
func TestContextsIntakeBounds(t *testing.T) {
	t.Parallel()
	st := store.NewMemory()
	gw := newGateway(t, withContextStore(st, conversation.Config{MaxBytes: 4096, MaxDepth: 16}), withBodyLimit(1<<20))
	many := `{"contextId":"m","metadata":{` + strings.Repeat(`"k":"",`, 2000) + `"z":""}}`
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		code, says               string
	}{
		{"metadata over maxBytes", "POST", "/contexts", `{"contextId":"m","metadata":{"a":"` + strings.Repeat("x", 5000) + `"}}`, 413, "PAYLOAD_TOO_LARGE", "contexts.maxBytes"},
		{"metadata 9,997 deep", "POST", "/contexts", `{"contextId":"m","metadata":` + deepJSON(9997) + `}`, 400, "BAD_REQUEST", "contexts.maxDepth"},
		{"metadata of many keys", "POST", "/contexts", many, 201, "", ""}, // duplicates collapse: one key
		{"invalid UTF-8 in metadata", "POST", "/contexts", "{\"contextId\":\"u\",\"metadata\":{\"a\":\"\xff\xfe\"}}", 400, "BAD_REQUEST", "UTF-8"},
		{"invalid UTF-8 in a key", "POST", "/contexts", "{\"contextId\":\"u\",\"metadata\":{\"\xc3\":1}}", 400, "BAD_REQUEST", "UTF-8"},
		{"state 9,997 deep", "PATCH", "/contexts/m", `{"operation":"UPDATE_STATE","state":` + deepJSON(9997) + `}`, 400, "BAD_REQUEST", "contexts.maxDepth"},
		{"state 17 deep", "PATCH", "/contexts/m", `{"operation":"UPDATE_STATE","state":` + deepJSON(17) + `}`, 400, "BAD_REQUEST", "contexts.maxDepth"},
		{"state over maxBytes", "PATCH", "/contexts/m", `{"operation":"UPDATE_STATE","state":{"a":"` + strings.Repeat("x", 5000) + `"}}`, 413, "PAYLOAD_TOO_LARGE", "contexts.maxBytes"},
		{"invalid UTF-8 in state", "PATCH", "/contexts/m", "{\"operation\":\"UPDATE_STATE\",\"state\":{\"a\":\"x\xffy\"}}", 400, "BAD_REQUEST", "UTF-8"},
		{"a huge number", "PATCH", "/contexts/m", `{"operation":"UPDATE_STATE","state":{"n":1` + strings.Repeat("0", 400) + `}}`, 400, "BAD_REQUEST", "number"},
		{"state 16 deep", "PATCH", "/contexts/m", `{"operation":"UPDATE_STATE","state":` + deepJSON(16) + `}`, 200, "", ""},
	} {
		status, body := call(t, gw, tc.method, tc.path, tc.body)
		if status != tc.status || !strings.Contains(body, tc.code) || !strings.Contains(body, tc.says) {
			t.Errorf("%s: %d %.300s\nwant %d %s naming %s", tc.name, status, body, tc.status, tc.code, tc.says)
		}
	}
	if _, err := st.Get(context.Background(), "context/u"); err == nil {
		t.Error("a body of invalid UTF-8 was stored")
	}
	if status, body := call(t, gw, "GET", "/contexts/m", ""); status != 200 || !strings.Contains(body, `"version":2`) {
		t.Errorf("GET after the refused writes = %d %.200s, want version 2", status, body)
	}
	if status, body := call(t, gw, "DELETE", "/contexts/m", ""); status != 204 {
		t.Errorf("DELETE = %d %s", status, body)
	}
}

// TestContextsBrokenRecord: a context stored unreadable by an older
// gateway (a state 9,998 deep) is a clear, non-recoverable 409 to its
// owner rather than a 503 to retry until its TTL, a 404 to others, and
// DELETE removes it.
func TestContextsBrokenRecord(t *testing.T) {
	t.Parallel()
	st := store.NewMemory()
	gw := newGateway(t, withContextStore(st, conversation.Config{}))
	deep := deepJSON(9998)
	raw := `{"context":{"contextId":"b","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:05Z","version":2,"owner":"` + conversation.Anonymous + `","messages":[],"state":` +
		deep + `,"metadata":{}},"changes":[{"version":2,"at":"2026-01-02T03:04:05Z","operation":"UPDATE_STATE","state":` + deep + `}]}`
	if err := st.Put(context.Background(), "context/b", []byte(raw), time.Hour); err != nil {
		t.Fatal(err)
	}
	status, body := call(t, gw, "GET", "/contexts/b", "")
	if status != 409 || !strings.Contains(body, `"errorCode":"CONFLICT"`) || !strings.Contains(body, `"recoverable":false`) || !strings.Contains(body, "DELETE") {
		t.Errorf("GET = %d %s, want 409 CONFLICT suggesting DELETE", status, body)
	}
	if status, _ := call(t, gw, "GET", "/contexts/b", "", server.HeaderUser, "mallory"); status != 404 {
		t.Errorf("GET by another user = %d, want 404", status)
	}
	if status, _ := call(t, gw, "DELETE", "/contexts/b", "", server.HeaderUser, "mallory"); status != 404 {
		t.Errorf("DELETE by another user = %d, want 404", status)
	}
	if status, body := call(t, gw, "DELETE", "/contexts/b", ""); status != 204 {
		t.Errorf("DELETE by the owner = %d %s, want 204", status, body)
	}
	if status, _ := call(t, gw, "GET", "/contexts/b", ""); status != 404 {
		t.Errorf("GET after DELETE = %d, want 404", status)
	}
}

// TestContextsCostFollowsSize: what POST /contexts allocates for
// adversarial bodies (many tiny strings, many fields, deep nesting, a huge
// number) stays within a constant factor of the body's size.
func TestContextsCostFollowsSize(t *testing.T) {
	h, _ := newHandler(t, withContextStore(store.NewMemory(), conversation.Config{MaxBytes: 8 << 20}), withBodyLimit(4<<20))
	strs := `{"metadata":{"a":[` + strings.Repeat(`"",`, 100000) + `""]}}`
	var fields strings.Builder
	fields.WriteString(`{"metadata":{`)
	for i := range 50000 {
		if i > 0 {
			fields.WriteByte(',')
		}
		fields.WriteString(`"` + strings.Repeat("k", 5) + string(rune('a'+i%26)) + strings.Repeat("x", i%7) + `":0`)
	}
	fields.WriteString("}}")
	for _, tc := range []struct {
		name, body string
		factor     uint64
	}{
		{"many tiny strings", strs, 60},
		{"many fields", fields.String(), 60},
		{"deep nesting", `{"metadata":` + deepJSON(9997) + `}`, 100}, // a map per level
		{"a huge number", `{"metadata":{"n":1` + strings.Repeat("0", 100000) + `}}`, 60},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		req := httptest.NewRequest(http.MethodPost, "/contexts", strings.NewReader(tc.body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		runtime.ReadMemStats(&after)
		if rec.Code >= 500 {
			t.Errorf("%s: %d %.200s", tc.name, rec.Code, rec.Body)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > tc.factor*uint64(len(tc.body)) {
			t.Errorf("%s: %d bytes allocated for a body of %d (%d×), want at most %d×", tc.name, got, len(tc.body), got/uint64(len(tc.body)), tc.factor)
		} else {
			t.Logf("%s: %d: %d bytes allocated for a body of %d (%.1f×)", tc.name, rec.Code, got, len(tc.body), float64(got)/float64(len(tc.body)))
		}
	}
}

// FuzzContextCreate sends arbitrary POST /contexts bodies: never a 5xx or
// a panic, and whatever is accepted (201) can be read back and deleted
// (the bounds hold at intake, so no accepted body bricks its context).
func FuzzContextCreate(f *testing.F) {
	for _, s := range []string{
		`{"contextId":"c","metadata":{"a":1}}`, `{"metadata":` + deepJSON(40) + `}`, `{"metadata":` + deepJSON(9997) + `}`, `{"metadata":` + deepJSON(9999) + `}`,
		"{\"metadata\":{\"a\":\"\xff\"}}", `{"metadata":{"n":1e999}}`, `{"metadata":[]}`, `{}`, ``, `{`, `null`,
	} {
		f.Add([]byte(s))
	}
	h, _ := newHandler(f, withContextStore(store.NewMemory(), conversation.Config{MaxBytes: 4096, MaxDepth: 32}))
	do := func(method, path string, body []byte) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := do(http.MethodPost, "/contexts", body)
		if rec.Code >= 500 {
			t.Fatalf("POST = %d %s", rec.Code, rec.Body)
		}
		if rec.Code != http.StatusCreated {
			return
		}
		var got struct{ ContextID string }
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || got.ContextID == "" {
			t.Fatalf("201 without a context: %s", rec.Body)
		}
		if g := do(http.MethodGet, "/contexts/"+got.ContextID, nil); g.Code != 200 {
			t.Fatalf("GET of an accepted context = %d %s", g.Code, g.Body)
		}
		if d := do(http.MethodDelete, "/contexts/"+got.ContextID, nil); d.Code != 204 {
			t.Fatalf("DELETE of an accepted context = %d %s", d.Code, d.Body)
		}
	})
}
