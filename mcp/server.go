package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ExportedTool is a tool the gateway offers to MCP clients.
type ExportedTool struct {
	Name        string
	Description string
	// InputSchema is the JSON Schema of the arguments, a JSON object with
	// "type":"object"; empty means {"type":"object"}.
	InputSchema json.RawMessage
	// Call runs the tool with arguments the client sent (not validated here).
	// A string result is sent as one text content; anything else as its JSON
	// text, plus structuredContent when that JSON is an object. isError marks
	// a failure the tool reports to the model; err is a protocol error.
	Call func(ctx context.Context, args map[string]any) (result any, isError bool, err error)
}

// defaultSchema is the input schema of a tool that declares none.
var defaultSchema = json.RawMessage(`{"type":"object"}`)

// NewHandler returns an http.Handler serving the MCP streamable HTTP transport
// at whatever path it is mounted on. It offers the tools that tools returns at
// the time of each tools/list and tools/call request, so the registry behind
// it may be reloaded at any time. name and version identify the server.
//
// The handler is stateless (no Mcp-Session-Id, GET and DELETE answer 405), so
// any gateway replica can serve any request. Like every SDK handler, it
// rejects a request that reached a loopback address with a non-loopback Host
// header (DNS rebinding protection).
func NewHandler(name, version string, tools func() []ExportedTool, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: name, Version: version}, &sdk.ServerOptions{
		Logger:       log,
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
	})
	e := &exporter{tools: tools, log: log}
	srv.AddReceivingMiddleware(e.middleware)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
		&sdk.StreamableHTTPOptions{Stateless: true, Logger: log, PropagateRequestCancellation: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestContextKey{}, r.Context())))
	})
}

// requestContextKey keys the context of the HTTP request that carried a
// message. The SDK hands request handlers that request's context values but,
// for protocol versions before 2026-07-28, not its cancellation; a stateless
// call's request ending (the client gave up) must still stop the tool.
type requestContextKey struct{}

// requestScoped returns ctx, cancelled also when the HTTP request that
// carried the message ends.
func requestScoped(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if rc, ok := ctx.Value(requestContextKey{}).(context.Context); ok {
		stop := context.AfterFunc(rc, cancel)
		return ctx, func() { stop(); cancel() }
	}
	return ctx, cancel
}

// exporter answers tools/list and tools/call from the current tool set.
type exporter struct {
	tools func() []ExportedTool
	log   *slog.Logger
}

// middleware takes over tools/list and tools/call; other methods go on to the
// SDK's own handling.
func (e *exporter) middleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		switch r := req.(type) {
		case *sdk.ListToolsRequest:
			return e.list(), nil
		case *sdk.CallToolRequest:
			return e.call(ctx, r.Params)
		}
		return next(ctx, method, req)
	}
}

// list returns every current tool, in one page.
func (e *exporter) list() *sdk.ListToolsResult {
	current := e.tools()
	res := &sdk.ListToolsResult{Tools: make([]*sdk.Tool, 0, len(current))}
	// The list may change at any reload: immediately stale (ttlMs 0), and
	// not for sharing between users should it ever depend on the caller.
	res.CacheScope = "private"
	for _, t := range current {
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = defaultSchema
		} else if !json.Valid(schema) {
			e.log.Error("mcp export: skipping tool with invalid input schema", "tool", t.Name)
			continue
		}
		res.Tools = append(res.Tools, &sdk.Tool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	return res
}

// lookup finds the current tool called name.
func (e *exporter) lookup(name string) (ExportedTool, bool) {
	for _, t := range e.tools() {
		if t.Name == name {
			return t, true
		}
	}
	return ExportedTool{}, false
}

// invalidParams is a JSON-RPC invalid-params error with msg.
func invalidParams(msg string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}
