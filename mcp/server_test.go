package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// registry is a tool set that tests change while the handler serves it.
type registry struct {
	mu    sync.Mutex
	tools []ExportedTool
}

func (r *registry) get() []ExportedTool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tools
}

func (r *registry) set(tools ...ExportedTool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tools = tools
}

// returning is a tool that returns result, isError and err, and records the
// arguments and context it was called with.
func returning(name string, result any, isError bool, err error, seen chan<- map[string]any) ExportedTool {
	return ExportedTool{
		Name: name, Description: "returns " + name,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"number"}}}`),
		Call: func(ctx context.Context, args map[string]any) (any, bool, error) {
			if seen != nil {
				seen <- args
			}
			return result, isError, err
		},
	}
}

// protocols are the protocol versions the handler is tested with: the SDK's
// latest and the ones IDEs speak today.
var protocols = []string{"", "2025-11-25", "2025-06-18", "2025-03-26"}

// exportServer serves NewHandler over reg and returns a connected SDK client
// session, closed when the test ends.
func exportServer(t *testing.T, reg *registry) (*sdk.ClientSession, string) {
	t.Helper()
	return exportServerVersion(t, reg, "")
}

// exportServerVersion is exportServer with the client asking for protocol
// version (the latest if empty).
func exportServerVersion(t *testing.T, reg *registry, version string) (*sdk.ClientSession, string) {
	t.Helper()
	ts := httptest.NewServer(NewHandler("agentgw", "v9", reg.get, quiet))
	t.Cleanup(ts.Close)
	client := sdk.NewClient(&sdk.Implementation{Name: "ide", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: ts.URL},
		&sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	if got := cs.InitializeResult().ProtocolVersion; version != "" && got != version {
		t.Fatalf("negotiated protocol %s, want %s", got, version)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, ts.URL
}

func TestHandlerInitialize(t *testing.T) {
	cs, _ := exportServer(t, &registry{})
	res := cs.InitializeResult()
	if res.ServerInfo.Name != "agentgw" || res.ServerInfo.Version != "v9" || res.Capabilities.Tools == nil {
		t.Fatalf("initialize result = %+v, server %+v", res, res.ServerInfo)
	}
	t.Logf("negotiated protocol %s", res.ProtocolVersion)
}

func TestHandlerListTools(t *testing.T) {
	reg := &registry{}
	reg.set(
		returning("b", "x", false, nil, nil),
		ExportedTool{Name: "a", Description: "no schema"},
		ExportedTool{Name: "broken", InputSchema: json.RawMessage(`{"type":`)},
	)
	cs, _ := exportServer(t, reg)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(res.Tools)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"description":"returns b","inputSchema":{"properties":{"x":{"type":"number"}},"type":"object"},"name":"b"},` +
		`{"description":"no schema","inputSchema":{"type":"object"},"name":"a"}]`
	if string(got) != want || res.NextCursor != "" {
		t.Fatalf("tools = %s (cursor %q)\nwant    %s", got, res.NextCursor, want)
	}
}

func TestHandlerCall(t *testing.T) {
	wire := &jsonrpc.Error{Code: -32000, Message: "quota exceeded"}
	tests := []handlerCallTest{
		{name: "string", tool: returning("t", `{"a":1}`, false, nil, nil), content: `{"a":1}`},
		{name: "object", tool: returning("t", map[string]any{"n": 1, "s": "<&>"}, false, nil, nil),
			content: `{"n":1,"s":"<&>"}`, structured: map[string]any{"n": 1.0, "s": "<&>"}},
		{name: "struct", tool: returning("t", struct{ N int }{2}, false, nil, nil), content: `{"N":2}`, structured: map[string]any{"N": 2.0}},
		{name: "array", tool: returning("t", []int{1, 2}, false, nil, nil), content: `[1,2]`},
		{name: "number", tool: returning("t", 4.5, false, nil, nil), content: `4.5`},
		{name: "nil", tool: returning("t", nil, false, nil, nil), content: `null`},
		{name: "raw json", tool: returning("t", json.RawMessage(` {"r": true} `), false, nil, nil), content: `{"r":true}`, structured: map[string]any{"r": true}},
		{name: "isError string", tool: returning("t", "bad input", true, nil, nil), content: "bad input", isError: true},
		{name: "isError object", tool: returning("t", map[string]any{"why": "x"}, true, nil, nil), content: `{"why":"x"}`, isError: true},
		{name: "error", tool: returning("t", nil, false, errors.New("backend down"), nil), wantErr: "backend down"},
		{name: "wire error", tool: returning("t", nil, false, wire, nil), wantErr: "quota exceeded"},
		{name: "unencodable", tool: returning("t", map[string]any{"c": make(chan int)}, false, nil, nil), wantErr: "encoding result"},
		{name: "unknown", tool: ExportedTool{Name: "other"}, wantErr: `unknown tool "t"`},
	}
	for _, version := range protocols {
		t.Run("protocol "+version, func(t *testing.T) { testHandlerCall(t, version, tests) })
	}
}

// handlerCallTest is one case of TestHandlerCall.
type handlerCallTest = struct {
	name       string
	tool       ExportedTool
	args       map[string]any
	content    string // the text content
	structured any
	isError    bool
	wantErr    string
}

// testHandlerCall runs the TestHandlerCall cases with protocol version.
func testHandlerCall(t *testing.T, version string, tests []handlerCallTest) {
	reg := &registry{}
	cs, _ := exportServerVersion(t, reg, version)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg.set(tt.tool)
			res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "t", Arguments: tt.args})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("CallTool = %+v, %v; want error %q", res, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Content) != 1 || res.Content[0].(*sdk.TextContent).Text != tt.content ||
				!reflect.DeepEqual(res.StructuredContent, tt.structured) || res.IsError != tt.isError {
				t.Fatalf("result = %+v (content %v), want text %q structured %v isError %v",
					res, res.Content, tt.content, tt.structured, tt.isError)
			}
		})
	}
}

func TestHandlerWireErrorCode(t *testing.T) {
	reg := &registry{}
	reg.set(returning("t", nil, false, &jsonrpc.Error{Code: -32000, Message: "quota"}, nil))
	cs, _ := exportServer(t, reg)
	_, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "t"})
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != -32000 || wire.Message != "quota" {
		t.Fatalf("err = %v (%T), want the tool's JSON-RPC error", err, err)
	}
}

func TestHandlerPassesArguments(t *testing.T) {
	tests := []struct {
		name string
		args any
		want map[string]any
		err  string
	}{
		{name: "object", args: map[string]any{"x": 1, "s": []string{"a"}}, want: map[string]any{"x": 1.0, "s": []any{"a"}}},
		{name: "absent", args: nil, want: map[string]any{}},
		{name: "not an object", args: []int{1}, err: "arguments must be a JSON object"},
	}
	reg := &registry{}
	seen := make(chan map[string]any, 1)
	reg.set(returning("t", "ok", false, nil, seen))
	cs, _ := exportServer(t, reg)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "t", Arguments: tt.args})
			if tt.err != "" {
				var wire *jsonrpc.Error
				if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams || !strings.Contains(wire.Message, tt.err) {
					t.Fatalf("err = %v, want invalid params %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := <-seen; !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("args = %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestHandlerToolsChange(t *testing.T) {
	reg := &registry{}
	reg.set(returning("one", "1", false, nil, nil))
	cs, _ := exportServer(t, reg)
	names := func() []string {
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tool := range res.Tools {
			out = append(out, tool.Name)
		}
		return out
	}
	if got := names(); !reflect.DeepEqual(got, []string{"one"}) {
		t.Fatalf("tools = %v", got)
	}
	reg.set(returning("two", "2", false, nil, nil))
	if got := names(); !reflect.DeepEqual(got, []string{"two"}) {
		t.Fatalf("after reload tools = %v", got)
	}
	if _, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "one"}); err == nil || !strings.Contains(err.Error(), `unknown tool "one"`) {
		t.Fatalf("calling a removed tool: %v", err)
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "two"})
	if err != nil || res.Content[0].(*sdk.TextContent).Text != "2" {
		t.Fatalf("calling the new tool: %+v, %v", res, err)
	}
}

func TestHandlerRoundTripWithClient(t *testing.T) {
	reg := &registry{}
	reg.set(returning("obj", map[string]any{"k": "v"}, false, nil, nil), returning("bad", "nope", true, nil, nil))
	_, url := exportServer(t, reg)
	c := dial(t, url, nil)
	if tools := listTools(t, c); len(tools) != 2 || tools[0].Name != "obj" {
		t.Fatalf("tools = %+v", tools)
	}
	if got, err := c.Call(t.Context(), "obj", nil); err != nil || !reflect.DeepEqual(got, map[string]any{"k": "v"}) {
		t.Fatalf("Call(obj) = %v, %v", got, err)
	}
	var te *ToolError
	if _, err := c.Call(t.Context(), "bad", nil); !errors.As(err, &te) || te.Text != "nope" {
		t.Fatalf("Call(bad) = %v", err)
	}
}

func TestHandlerCancelsToolOnClientCancel(t *testing.T) {
	for _, version := range protocols {
		t.Run("protocol "+version, func(t *testing.T) { testHandlerCancel(t, version) })
	}
}

// testHandlerCancel checks that cancelling a call cancels the tool's context.
func testHandlerCancel(t *testing.T, version string) {
	started, stopped := make(chan struct{}), make(chan error, 1)
	reg := &registry{}
	reg.set(ExportedTool{Name: "wait", Call: func(ctx context.Context, _ map[string]any) (any, bool, error) {
		close(started)
		<-ctx.Done()
		stopped <- ctx.Err()
		return nil, false, ctx.Err()
	}})
	cs, _ := exportServerVersion(t, reg, version)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started
		cancel()
	}()
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "wait"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Fatalf("tool context ended with %v", err)
	}
}

func TestHandlerMethodNotAllowed(t *testing.T) {
	ts := httptest.NewServer(NewHandler("agentgw", "v9", func() []ExportedTool { return nil }, nil))
	defer ts.Close()
	resp, err := http.Get(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
		t.Fatalf("GET = %d Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

func TestHandlerToolSeesRequestContextValues(t *testing.T) {
	type userKey struct{}
	seen := make(chan any, 1)
	tools := func() []ExportedTool {
		return []ExportedTool{{Name: "who", Call: func(ctx context.Context, _ map[string]any) (any, bool, error) {
			seen <- ctx.Value(userKey{})
			return "ok", false, nil
		}}}
	}
	h := NewHandler("agentgw", "v9", tools, quiet)
	auth := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, "ann")))
	})
	ts := httptest.NewServer(auth)
	defer ts.Close()
	for _, version := range protocols {
		client := sdk.NewClient(&sdk.Implementation{Name: "ide", Version: "1"}, nil)
		cs, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: ts.URL},
			&sdk.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "who"}); err != nil {
			t.Fatal(err)
		}
		if got := <-seen; got != "ann" {
			t.Errorf("protocol %q: tool saw user %v, want the request's", version, got)
		}
		cs.Close()
	}
}
