package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/agentgw/agentgw/internal/golden"
)

func TestBodyGolden(t *testing.T) {
	req := &ChatRequest{
		Model: "gpt-4o",
		Messages: []Message{
			{Role: "system", Content: "You are a world-class programmer"},
			{Raw: json.RawMessage(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",` +
				`"function":{"name":"grep","arguments":"{\"q\":\"x\"}"}}]}`)},
			{Raw: json.RawMessage(`{"role":"tool","tool_call_id":"call_1","content":"no match"}`)},
			{Role: "user", Content: "if a < b && c > d {\n\t\"quote\" \\ 世界 \xff\n}"},
		},
		Extra: []Field{
			{Key: "temperature", Value: json.RawMessage(`0.2`)},
			{Key: "model", Value: json.RawMessage(`"client-model"`)},
			{Key: "stop", Value: json.RawMessage(`["\n\n","END"]`)},
			{Key: "stream", Value: json.RawMessage(`false`)},
			{Key: "messages", Value: json.RawMessage(`[]`)},
			{Key: "user", Value: json.RawMessage(`"u-1"`)},
			{Key: "stream_options", Value: json.RawMessage(`{"include_usage":true}`)},
		},
	}
	body, err := req.Body()
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(body) {
		t.Fatalf("body is not valid JSON: %s", body)
	}
	golden.Check(t, "testdata/body.golden.json", append(body, '\n'))
}

func TestBodyWithoutModel(t *testing.T) {
	body, err := (&ChatRequest{}).Body()
	if err != nil || string(body) != `{"messages":[],"stream":true}` {
		t.Errorf("Body() = %s, %v", body, err)
	}
}

func TestBodyRejectsInvalidRaw(t *testing.T) {
	bad := []*ChatRequest{
		{Extra: []Field{{Key: "temperature", Value: json.RawMessage(`0.2.`)}}},
		{Extra: []Field{{Key: "top_p"}}},
		{Messages: []Message{{Raw: json.RawMessage(`{"role":`)}}},
		{Messages: []Message{{Raw: json.RawMessage(`null`)}}},
		{Messages: []Message{{Raw: json.RawMessage(`["role"]`)}}},
		{Messages: []Message{{Raw: json.RawMessage(`"hi"`)}}},
	}
	for i, req := range bad {
		if body, err := req.Body(); err == nil {
			t.Errorf("case %d: Body() = %s, want an error", i, body)
		}
	}
}

func TestForwardHeaders(t *testing.T) {
	src := http.Header{
		"Authorization":       {"Bearer plugin-token"},
		"User-Agent":          {"jetbrains-plugin/1.2"},
		"X-Request-Id":        {"req-1"},
		"X-Multi":             {"a", "b"},
		"Cookie":              {"session=1"},
		"Host":                {"gateway.local"},
		"Content-Length":      {"123"},
		"Content-Encoding":    {"gzip"},
		"Accept-Encoding":     {"gzip, br"},
		"Expect":              {"100-continue"},
		"Connection":          {"keep-alive, X-Hop"},
		"X-Hop":               {"per-connection"},
		"Keep-Alive":          {"timeout=5"},
		"Proxy-Authorization": {"Basic eA=="},
		"Proxy-Connection":    {"keep-alive"},
		"Te":                  {"trailers"},
		"Trailer":             {"X-T"},
		"Transfer-Encoding":   {"chunked"},
		"Upgrade":             {"websocket"},
		"x-lowercase":         {"kept"},
	}
	dst := http.Header{"Authorization": {"Bearer old"}}
	ForwardHeaders(dst, src)
	want := map[string][]string{
		"Authorization": {"Bearer plugin-token"},
		"User-Agent":    {"jetbrains-plugin/1.2"},
		"X-Request-Id":  {"req-1"},
		"X-Multi":       {"a", "b"},
		"Cookie":        {"session=1"},
		"X-Lowercase":   {"kept"},
	}
	if len(dst) != len(want) {
		t.Errorf("forwarded %v, want exactly %v", dst, want)
	}
	for k, v := range want {
		if !slices.Equal(dst[k], v) {
			t.Errorf("%s = %q, want %q", k, dst[k], v)
		}
	}
	src["X-Multi"][0] = "changed"
	if dst["X-Multi"][0] != "a" {
		t.Error("ForwardHeaders shares value slices with src")
	}
}

func TestHeaderPolicy(t *testing.T) {
	inbound := http.Header{
		"Authorization": {"Bearer plugin-token"},
		"X-Plugin":      {"vscode"},
		"Connection":    {"X-Hop"},
		"X-Hop":         {"1"},
		"Content-Type":  {"text/plain"},
		"Accept":        {"*/*"},
	}
	tests := []struct {
		name    string
		cfg     Config
		present map[string]string
		absent  []string
	}{
		{"forward", Config{Auth: AuthForward},
			map[string]string{"Authorization": "Bearer plugin-token", "X-Plugin": "vscode",
				"Content-Type": "application/json", "Accept": "text/event-stream"},
			[]string{"X-Hop"}},
		{"default is forward", Config{},
			map[string]string{"Authorization": "Bearer plugin-token", "X-Plugin": "vscode"}, []string{"X-Hop"}},
		{"key", Config{Auth: AuthKey, APIKey: "sk-secret"},
			map[string]string{"Authorization": "Bearer sk-secret", "Content-Type": "application/json",
				"Accept": "text/event-stream"},
			[]string{"X-Plugin", "X-Hop"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := newUpstream(t, replayFile(t, "normal.sse"))
			req := &ChatRequest{Model: "m", Header: inbound}
			if _, err := newTestClient(t, u, tt.cfg).Stream(context.Background(), req, &recordSink{}); err != nil {
				t.Fatal(err)
			}
			got := u.Last(t).Header
			for k, v := range tt.present {
				if got.Get(k) != v {
					t.Errorf("%s = %q, want %q", k, got.Get(k), v)
				}
			}
			for _, k := range tt.absent {
				if _, ok := got[k]; ok {
					t.Errorf("%s was sent: %q", k, got[k])
				}
			}
			if ae := got.Get("Accept-Encoding"); ae != "" {
				t.Errorf("Accept-Encoding %q sent; compressed streams buffer tokens", ae)
			}
		})
	}
}

// TestMessageJSONRoundTrip: a Message comes back from JSON exactly as it
// was (a paused run is kept as JSON): an empty Raw stays empty, never the
// literal null, and a raw message keeps its bytes, spaces and <, >, &
// included.
func TestMessageJSONRoundTrip(t *testing.T) {
	msgs := []Message{
		{Role: "system", Content: "You use tools."},
		{Role: "user", Content: "if a < b && c > d {\n\t\"q\" \\ 世界\n}"},
		{Role: "user"},
		{Role: "user", Raw: json.RawMessage(`{"role": "user",  "content": "a<b && c>d \u00e9"}`)},
		AssistantMessage("", []ToolCall{{ID: "c1", Name: "grep", Arguments: `{"q": "<x>"}`}}),
		ToolMessage("c1", `{"status":"SUCCESS"}`),
	}
	data, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	var got []Message
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(msgs, got, sameMessage) {
		t.Fatalf("round trip through %s:\n got %q\nwant %q", data, got, msgs)
	}
	before, err := (&ChatRequest{Messages: msgs}).Body()
	if err != nil {
		t.Fatal(err)
	}
	after, err := (&ChatRequest{Messages: got}).Body()
	if err != nil || string(after) != string(before) {
		t.Fatalf("body after the round trip:\n%s, %v\nbefore:\n%s", after, err, before)
	}
}

// TestMessageJSONOldForm: the form gateways wrote before Message had its
// own encoding, Raw embedded and null when empty, decodes to the messages
// it meant.
func TestMessageJSONOldForm(t *testing.T) {
	old := `[{"Role":"system","Content":"You use tools.","Raw":null},` +
		`{"Role":"tool","Content":"","Raw":{"role":"tool","tool_call_id":"c1","content":"ok"}}]`
	var got []Message
	if err := json.Unmarshal([]byte(old), &got); err != nil {
		t.Fatal(err)
	}
	want := []Message{{Role: "system", Content: "You use tools."},
		{Role: "tool", Raw: json.RawMessage(`{"role":"tool","tool_call_id":"c1","content":"ok"}`)}}
	if !slices.EqualFunc(want, got, sameMessage) {
		t.Fatalf("got %q, want %q", got, want)
	}
	if err := json.Unmarshal([]byte(`[{"raw":7}]`), &got); err != nil {
		t.Fatal(err) // decodes; Body refuses a raw message that is no object
	}
	if body, err := (&ChatRequest{Messages: got}).Body(); err == nil {
		t.Fatalf("Body() = %s, want an error", body)
	}
}

func sameMessage(a, b Message) bool {
	return a.Role == b.Role && a.Content == b.Content && string(a.Raw) == string(b.Raw) && (a.Raw == nil) == (b.Raw == nil)
}
