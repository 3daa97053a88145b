package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/conversation"
	"github.com/agentgw/agentgw/internal/testclock"
	"github.com/agentgw/agentgw/server"
	"github.com/agentgw/agentgw/store"
)

// withContexts serves contexts from a memory store on clock.
func withContexts(clock *testclock.Clock) option {
	return withServer(func(c *server.Config) {
		c.Contexts = conversation.NewStoreRepo(store.NewMemory(), conversation.Config{Now: clock.Now})
	})
}

var errTimestamp = regexp.MustCompile(`"timestamp":"[^"]*"`)

// call sends a request with a fixed request id and returns the status and
// the body with the error timestamp replaced by "T".
func call(t *testing.T, gw *gateway, method, path, body string, header ...string) (int, string) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	header = append(header, "X-Request-Id", "rid")
	resp := send(t, method, gw.URL+path, "application/json", r, header...)
	return resp.status, errTimestamp.ReplaceAllString(string(resp.body), `"timestamp":"T"`)
}

func errBody(code, msg, source string, recoverable bool, suggestion string) string {
	rec := "false"
	if recoverable {
		rec = "true"
	}
	return `{"type":"ERROR_RESPONSE","content":{"errorCode":"` + code + `","message":"` + msg +
		`","details":{"requestId":"rid","timestamp":"T"},"source":"` + source + `","recoverable":` + rec +
		`,"suggestedAction":"` + suggestion + `"}}`
}

const (
	notFoundHint = "POST /contexts creates a context; an id that was deleted or belongs to another caller cannot be used"
	// ownerHint is the suggestion of /contexts/{id} for a context the
	// caller, who names itself, does not see.
	ownerHint = "check the id and who asks: a context is seen only by the caller that created it " +
		"(the same token, or the same X-Agentgw-User header); a deleted id cannot be used again; POST /contexts creates a new one"
	operationHint = `send {\"operation\":\"UPDATE_STATE\",\"state\":{...},\"version\":N}, {\"operation\":\"UPDATE_STATE\",\"path\":\"a.b\",\"value\":...}, ` +
		`{\"operation\":\"CLEAR_HISTORY\",\"filter\":{\"beforeTimestamp\":T}?} or {\"operation\":\"ADD_MESSAGE\",\"message\":{...}}, bare or as {\"type\":\"CONTEXT_UPDATE\",\"content\":{...}}`
	conflictHint = "GET the context (or its changes since your version) and retry the write on the current version"
)

// TestContextsAPI walks the API through one context's life, asserting
// every response byte for byte.
func TestContextsAPI(t *testing.T) {
	t.Parallel()
	clock := testclock.New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	gw := newGateway(t, withContexts(clock), withAuthTokens("tok-a", "tok-b"))
	a := []string{"Authorization", "Bearer tok-a"}
	b := []string{"X-Agentgw-Token", "tok-b"}
	const owner = `"owner":"token:4f66a4283f8bc9768c3cb97fd06d267b"`
	steps := []struct {
		method, path, body string
		header             []string
		status             int
		want               string
	}{
		{"POST", "/contexts", `{"contextId":"conv-1","metadata":{"ide":"vscode"}}`, a, 201,
			`{"contextId":"conv-1","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:05Z","version":1,` + owner + `,"messages":[],"state":{},"metadata":{"ide":"vscode"}}` + "\n"},
		{"POST", "/contexts", `{"contextId":"conv-1"}`, a, 409,
			errBody("CONTEXT_CONFLICT", `context \"conv-1\" exists already`, "client", true, "GET /contexts/{id} to use it, or create one with another id")},
		{"GET", "/contexts/conv-1", "", b, 404, errBody("CONTEXT_NOT_FOUND", `no context \"conv-1\"`, "client", false, ownerHint)},
		{"GET", "/contexts/conv-1", "", nil, 401, ""},
		{"PATCH", "/contexts/conv-1", `{"operation":"UPDATE_STATE","state":{"branch":"main","n":1},"version":1}`, a, 200,
			`{"contextId":"conv-1","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:05Z","version":2,` + owner + `,"messages":[],"state":{"branch":"main","n":1},"metadata":{"ide":"vscode"}}` + "\n"},
		{"PATCH", "/contexts/conv-1", `{"operation":"UPDATE_STATE","state":{"n":2},"version":1}`, a, 409,
			errBody("CONTEXT_CONFLICT", `context \"conv-1\" has changed since that version`, "client", true, conflictHint)},
		{"PATCH", "/contexts/conv-1", `{"operation":"UPDATE_STATE","state":{"n":2}}`, append([]string{"If-Match", `"1"`}, a...), 409,
			errBody("CONTEXT_CONFLICT", `context \"conv-1\" has changed since that version`, "client", true, conflictHint)},
		{"PATCH", "/contexts/conv-1", `{"operation":"UPDATE_STATE","state":{"n":null}}`, append([]string{"If-Match", `"2"`}, a...), 200,
			`{"contextId":"conv-1","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:05Z","version":3,` + owner + `,"messages":[],"state":{"branch":"main"},"metadata":{"ide":"vscode"}}` + "\n"},
		{"PATCH", "/contexts/conv-1", `{"operation":"CLEAR_HISTORY"}`, append([]string{"If-Match", "*"}, a...), 200,
			`{"contextId":"conv-1","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:05Z","version":4,` + owner + `,"messages":[],"state":{"branch":"main"},"metadata":{"ide":"vscode"}}` + "\n"},
		{"PATCH", "/contexts/conv-1", `{"operation":"DELETE"}`, a, 400,
			errBody("BAD_REQUEST", `bad context operation: \"DELETE\" is not an operation of PATCH (UPDATE_STATE, CLEAR_HISTORY or ADD_MESSAGE)`, "client", false, operationHint)},
		{"PATCH", "/contexts/conv-1", `{"operation":"CLEAR_HISTORY"}`, b, 404, errBody("CONTEXT_NOT_FOUND", `no context \"conv-1\"`, "client", false, ownerHint)},
		{"GET", "/contexts/conv-1/changes?since=2", "", a, 200,
			`{"contextId":"conv-1","version":4,"changes":[{"version":3,"at":"2026-01-02T03:04:05Z","operation":"UPDATE_STATE","state":{"n":null}},{"version":4,"at":"2026-01-02T03:04:05Z","operation":"CLEAR_HISTORY"}],"truncated":false}` + "\n"},
		{"GET", "/contexts/conv-1/changes?since=x", "", a, 400,
			errBody("BAD_REQUEST", `since=\"x\" is not a context version`, "client", false, "send since=N, the version you have (0 for the whole log)")},
		{"GET", "/contexts/bad%20id", "", a, 400,
			errBody("BAD_REQUEST", `context id \"bad id\" is malformed`, "client", false, "use a UUID or 1 to 128 characters of A-Z a-z 0-9 . _ : -")},
		{"DELETE", "/contexts/conv-1", "", append([]string{"If-Match", "3"}, a...), 409,
			errBody("CONTEXT_CONFLICT", `context \"conv-1\" has changed since that version`, "client", true, conflictHint)},
		{"DELETE", "/contexts/conv-1", "", append([]string{"If-Match", "v4"}, a...), 400,
			errBody("BAD_REQUEST", `If-Match \"v4\" is not a context version`, "client", false, "send the context's version, a positive integer")},
		{"DELETE", "/contexts/conv-1", "", b, 404, errBody("CONTEXT_NOT_FOUND", `no context \"conv-1\"`, "client", false, ownerHint)},
		{"DELETE", "/contexts/conv-1", "", a, 204, ""},
		{"GET", "/contexts/conv-1", "", a, 404, errBody("CONTEXT_NOT_FOUND", `no context \"conv-1\"`, "client", false, ownerHint)},
		{"POST", "/contexts", `{"contextId":"conv-1"}`, a, 404, errBody("CONTEXT_NOT_FOUND", `no context \"conv-1\"`, "client", false, ownerHint)},
	}
	for i, s := range steps {
		status, body := call(t, gw, s.method, s.path, s.body, s.header...)
		if status != s.status || (s.status != 401 && body != s.want) {
			t.Fatalf("step %d %s %s = %d\n%s\nwant %d\n%s", i, s.method, s.path, status, body, s.status, s.want)
		}
	}
}

// TestContextsAnonymous: without inbound auth the caller is "anonymous";
// POST without a body makes a UUID.
func TestContextsAnonymous(t *testing.T) {
	t.Parallel()
	clock := testclock.New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	gw := newGateway(t, withContexts(clock))
	status, body := call(t, gw, "POST", "/contexts", "")
	uuidBody := regexp.MustCompile(`^\{"contextId":"[0-9a-f-]{36}","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:05Z","version":1,"owner":"anonymous","messages":\[\],"state":\{\},"metadata":\{\}\}` + "\n$")
	if status != 201 || !uuidBody.MatchString(body) {
		t.Fatalf("POST /contexts = %d %s", status, body)
	}
}

// TestContextsConcurrentPatch: two PATCHes naming the same version at
// once: exactly one 200, one 409.
func TestContextsConcurrentPatch(t *testing.T) {
	t.Parallel()
	clock := testclock.New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	gw := newGateway(t, withContexts(clock))
	if status, body := call(t, gw, "POST", "/contexts", `{"contextId":"c"}`); status != 201 {
		t.Fatalf("create: %d %s", status, body)
	}
	for round := range 10 {
		version := round + 1
		var wg sync.WaitGroup
		statuses := make([]int, 2)
		start := make(chan struct{})
		for w := range 2 {
			wg.Go(func() {
				<-start
				req, _ := http.NewRequest("PATCH", gw.URL+"/contexts/c",
					strings.NewReader(`{"operation":"UPDATE_STATE","state":{"w":`+string(rune('0'+w))+`},"version":`+strconv.Itoa(version)+`}`))
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				_ = resp.Body.Close()
				statuses[w] = resp.StatusCode
			})
		}
		close(start)
		wg.Wait()
		if !(statuses[0] == 200 && statuses[1] == 409 || statuses[0] == 409 && statuses[1] == 200) {
			t.Fatalf("round %d: statuses %v, want one 200 and one 409", round, statuses)
		}
	}
}

// TestContextsStateTooLarge: a state over contexts.maxBytes is 413 and
// writes nothing.
func TestContextsStateTooLarge(t *testing.T) {
	t.Parallel()
	clock := testclock.New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	gw := newGateway(t, withServer(func(c *server.Config) {
		c.Contexts = conversation.NewStoreRepo(store.NewMemory(), conversation.Config{Now: clock.Now, MaxBytes: 16})
	}))
	if status, body := call(t, gw, "POST", "/contexts", `{"contextId":"c"}`); status != 201 {
		t.Fatalf("create: %d %s", status, body)
	}
	status, body := call(t, gw, "PATCH", "/contexts/c", `{"operation":"UPDATE_STATE","state":{"a":"0123456789abcdef"}}`)
	want := errBody("PAYLOAD_TOO_LARGE", `context \"c\": context too large: the state and metadata are 26 bytes, over the limit of 16 (contexts.maxBytes)`, "client", false,
		"keep less in the context's state, or ask the operator to raise contexts.maxBytes")
	if status != 413 || body != want {
		t.Fatalf("PATCH = %d %s\nwant 413 %s", status, body, want)
	}
	if status, body := call(t, gw, "GET", "/contexts/c/changes", ""); status != 200 ||
		body != `{"contextId":"c","version":1,"changes":[{"version":1,"at":"2026-01-02T03:04:05Z","operation":"CREATE"}],"truncated":false}`+"\n" {
		t.Fatalf("changes = %d %s", status, body)
	}
}

// FuzzContextPatch sends arbitrary PATCH bodies to a context: never a 5xx
// or a panic; a 200 is the context at the next version, anything else a
// well-formed ERROR_RESPONSE of a client code, and the context is unchanged.
func FuzzContextPatch(f *testing.F) {
	for _, s := range []string{
		`{"operation":"UPDATE_STATE","state":{"a":1},"version":1}`,
		`{"operation":"UPDATE_STATE","state":{"a":null,"o":{"x":[1,2]}}}`,
		`{"operation":"CLEAR_HISTORY"}`, `{"operation":"ADD_MESSAGE"}`, `{"operation":"DELETE"}`,
		`{"operation":"UPDATE_STATE"}`, `{"operation":"UPDATE_STATE","state":[]}`, `{"version":-1}`,
		`{"operation":"CLEAR_HISTORY","version":99}`, `{"x":1}`, `{`, `[]`, `null`, ``,
		`{"type":"CONTEXT_UPDATE","content":{"operation":"UPDATE_STATE","path":"a.0.b","value":"英文"}}`,
		`{"type":"CONTEXT_UPDATE","content":{"operation":"CLEAR_HISTORY","filter":{"beforeTimestamp":"2025-12-01T09:00:00Z"}}}`,
		`{"operation":"ADD_MESSAGE","message":{"messageId":"m","type":"USER_INPUT","content":{"text":"x"}}}`,
	} {
		f.Add([]byte(s))
	}
	h, _ := newHandler(f, withServer(func(c *server.Config) {
		c.Contexts = conversation.NewStoreRepo(store.NewMemory(), conversation.Config{MaxBytes: 256})
	}))
	var n int
	f.Fuzz(func(t *testing.T, body []byte) {
		n++
		id := "c" + strconv.Itoa(n)
		create := localRequest(http.MethodPost, "/contexts", strings.NewReader(`{"contextId":"`+id+`"}`))
		create.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, create)
		if rec.Code != 201 {
			t.Fatalf("create: %d %s", rec.Code, rec.Body)
		}
		req := localRequest(http.MethodPatch, "/contexts/"+id, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var got struct {
			Version int64 `json:"version"`
			Type    string
			Content struct{ ErrorCode string }
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatalf("%d: body %q is not JSON: %v", rec.Code, rec.Body, err)
		}
		switch {
		case rec.Code == 200 && got.Version == 2:
		case rec.Code >= 400 && rec.Code < 500 && got.Type == "ERROR_RESPONSE" && got.Content.ErrorCode != "":
			get := httptest.NewRecorder()
			h.ServeHTTP(get, localRequest(http.MethodGet, "/contexts/"+id, nil))
			if !strings.Contains(get.Body.String(), `"version":1,`) {
				t.Fatalf("a refused PATCH (%d) changed the context: %s", rec.Code, get.Body)
			}
		default:
			t.Fatalf("PATCH %q = %d %s", body, rec.Code, rec.Body)
		}
	})
}

// TestContextsSeedPatch: PATCH takes the seed's update messages (seed 000
// section 8.2), bare or in the CONTEXT_UPDATE envelope, with the version
// check as the project's operations have it; every answer byte for byte.
func TestContextsSeedPatch(t *testing.T) {
	t.Parallel()
	clock := testclock.New(time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC))
	gw := newGateway(t, withContexts(clock))
	ctx := func(version int, updated, messages, state string) string {
		return `{"contextId":"s1","createdAt":"2026-01-02T03:00:00Z","updatedAt":"2026-01-02T` + updated + `Z","version":` + strconv.Itoa(version) +
			`,"owner":"anonymous","messages":[` + messages + `],"state":{` + state + `},"metadata":{}}` + "\n"
	}
	const hi, hello = `{"role":"user","content":"你好"}`, `{"role":"assistant","content":"您好!有什么可以帮助您的?","toolCalls":[{"id":"c1"}]}`
	steps := []struct {
		advance            time.Duration
		method, path, body string
		header             []string
		status             int
		want               string
	}{
		{0, "POST", "/contexts", `{"contextId":"s1"}`, nil, 201, ctx(1, "03:00:00", "", "")},
		{0, "PATCH", "/contexts/s1", `{"type":"CONTEXT_UPDATE","content":{"operation":"ADD_MESSAGE","message":{"messageId":"msg_001","type":"USER_INPUT","content":{"text":"你好"}}}}`, nil, 200,
			ctx(2, "03:00:00", hi, "")},
		{time.Hour, "PATCH", "/contexts/s1", `{"operation":"ADD_MESSAGE","message":{"type":"MODEL_RESPONSE","content":{"text":"您好!有什么可以帮助您的?","toolCalls":[{"id":"c1"}]}},"version":2}`, nil, 200,
			ctx(3, "04:00:00", hi+","+hello, "")},
		{0, "PATCH", "/contexts/s1", `{"type":"CONTEXT_UPDATE","content":{"operation":"UPDATE_STATE","path":"userPreferences.language","value":"英文"},"version":3}`, nil, 200,
			ctx(4, "04:00:00", hi+","+hello, `"userPreferences":{"language":"英文"}`)},
		{0, "PATCH", "/contexts/s1", `{"operation":"UPDATE_STATE","path":"userPreferences.language","value":"中文"}`, []string{"If-Match", "3"}, 409,
			errBody("CONTEXT_CONFLICT", `context \"s1\" has changed since that version`, "client", true, conflictHint)},
		{0, "PATCH", "/contexts/s1", `{"operation":"UPDATE_STATE","state":{"activeTools":["weather_api"]}}`, nil, 200,
			ctx(5, "04:00:00", hi+","+hello, `"activeTools":["weather_api"],"userPreferences":{"language":"英文"}`)},
		{0, "PATCH", "/contexts/s1", `{"operation":"UPDATE_STATE","path":"activeTools.1","value":"calculator"}`, nil, 422,
			errBody("INVALID_PARAMETERS", `context \"s1\": context state path cannot be set: \"1\" in path \"activeTools.1\" is not an index of an array of 1`, "client", false,
				"a path's keys create the objects that are missing; an array is indexed by a number from 0 to its length - 1")},
		{0, "PATCH", "/contexts/s1", `{"operation":"UPDATE_STATE","path":"userPreferences.language.x","value":1}`, nil, 422,
			errBody("INVALID_PARAMETERS", `context \"s1\": context state path cannot be set: \"x\" in path \"userPreferences.language.x\" is below a string, not an object or an array`, "client", false,
				"a path's keys create the objects that are missing; an array is indexed by a number from 0 to its length - 1")},
		{0, "PATCH", "/contexts/s1", `{"operation":"UPDATE_STATE","path":"userPreferences.language"}`, nil, 400,
			errBody("BAD_REQUEST", `bad context operation: an UPDATE_STATE with a path needs a value (null deletes the key)`, "client", false, operationHint)},
		{0, "PATCH", "/contexts/s1", `{"type":"CONTEXT_UPDATE","operation":"CLEAR_HISTORY"}`, nil, 400,
			errBody("BAD_REQUEST", `bad context operation: the operation of a CONTEXT_UPDATE goes in its content`, "client", false, operationHint)},
		{0, "PATCH", "/contexts/s1", `{"type":"CONTEXT_UPDATE","contextId":"other","content":{"operation":"CLEAR_HISTORY"}}`, nil, 400,
			errBody("BAD_REQUEST", `the body's contextId \"other\" is not the path's \"s1\"`, "client", false, "leave contextId out of the envelope, or send it to PATCH /contexts/{contextId}")},
		{0, "PATCH", "/contexts/s1", `{"operation":"ADD_MESSAGE","message":{"type":"NOTE","content":{"text":"x"}}}`, nil, 400,
			errBody("BAD_REQUEST", `message 0: bad context operation: message type \"NOTE\" is not USER_INPUT, MODEL_RESPONSE, TOOL_CALL_RESPONSE or SYSTEM_MESSAGE`, "client", false, operationHint)},
		{0, "PATCH", "/contexts/s1", `{"type":"CONTEXT_UPDATE","content":{"operation":"CLEAR_HISTORY","filter":{"beforeTimestamp":"2026-01-02T03:30:00Z"}}}`, nil, 200,
			ctx(6, "04:00:00", hello, `"activeTools":["weather_api"],"userPreferences":{"language":"英文"}`)},
		{0, "GET", "/contexts/s1/changes?since=3", "", nil, 200,
			`{"contextId":"s1","version":6,"changes":[{"version":4,"at":"2026-01-02T04:00:00Z","operation":"UPDATE_STATE","path":"userPreferences.language","value":"英文"},` +
				`{"version":5,"at":"2026-01-02T04:00:00Z","operation":"UPDATE_STATE","state":{"activeTools":["weather_api"]}},` +
				`{"version":6,"at":"2026-01-02T04:00:00Z","operation":"CLEAR_HISTORY","beforeTimestamp":"2026-01-02T03:30:00Z"}],"truncated":false}` + "\n"},
		{0, "PATCH", "/contexts/s1", `{"operation":"CLEAR_HISTORY"}`, nil, 200, ctx(7, "04:00:00", "", `"activeTools":["weather_api"],"userPreferences":{"language":"英文"}`)},
	}
	for i, s := range steps {
		clock.Advance(s.advance)
		status, body := call(t, gw, s.method, s.path, s.body, s.header...)
		if status != s.status || body != s.want {
			t.Fatalf("step %d %s %s = %d\n%s\nwant %d\n%s", i, s.method, s.path, status, body, s.status, s.want)
		}
	}
}
