package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// call runs one tools/call request.
func (e *exporter) call(ctx context.Context, p *sdk.CallToolParamsRaw) (*sdk.CallToolResult, error) {
	if p == nil {
		return nil, invalidParams("missing params")
	}
	tool, ok := e.lookup(p.Name)
	if !ok || tool.Call == nil {
		return nil, invalidParams(fmt.Sprintf("unknown tool %q", p.Name))
	}
	args, err := decodeArgs(p.Arguments)
	if err != nil {
		return nil, invalidParams(fmt.Sprintf("tool %q: %v", p.Name, err))
	}
	ctx, cancel := requestScoped(ctx)
	defer cancel()
	result, isError, err := tool.Call(ctx, args)
	if err != nil {
		e.log.Debug("mcp export: tool call failed", "tool", p.Name, "error", err)
		var wire *jsonrpc.Error
		if errors.As(err, &wire) {
			return nil, wire
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	res, err := toolResult(result, isError)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("tool %q: %v", p.Name, err)}
	}
	return res, nil
}

// decodeArgs decodes tools/call arguments, which must be a JSON object or
// absent (null and absent give an empty map).
func decodeArgs(raw json.RawMessage) (map[string]any, error) {
	args := map[string]any{}
	raw = bytes.Trim(raw, " \t\r\n") // JSON whitespace only
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return args, nil
	}
	if raw[0] != '{' {
		return nil, errors.New("arguments must be a JSON object")
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, fmt.Errorf("decoding arguments: %w", err)
	}
	return args, nil
}

// toolResult encodes what a tool returned as a CallToolResult.
func toolResult(result any, isError bool) (*sdk.CallToolResult, error) {
	if s, ok := result.(string); ok {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}, IsError: isError}, nil
	}
	b, err := marshalJSON(result)
	if err != nil {
		return nil, fmt.Errorf("encoding result: %w", err)
	}
	res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}, IsError: isError}
	if !isError && len(b) > 0 && b[0] == '{' {
		res.StructuredContent = json.RawMessage(b)
	}
	return res, nil
}

// marshalJSON encodes v compactly without escaping <, > and &.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
