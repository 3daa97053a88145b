package mcp

import (
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolError is a failure the tool itself reported (a result with isError set),
// as opposed to a failure to reach the server or a protocol error. Its Error
// is exactly the text the tool returned, fit to show a model.
type ToolError struct {
	Text string // the tool's text contents, joined with newlines
}

// Error returns the tool's own text.
func (e *ToolError) Error() string { return e.Text }

// resultValue turns a tool result into what Call returns.
func resultValue(res *sdk.CallToolResult) (any, error) {
	text := joinText(res.Content)
	if res.IsError {
		return nil, &ToolError{Text: text}
	}
	if res.StructuredContent != nil {
		return res.StructuredContent, nil
	}
	return text, nil
}

// joinText joins the text of the text contents with newlines; other content
// kinds (images, audio, resources) carry no text and are left out.
func joinText(contents []sdk.Content) string {
	var parts []string
	for _, c := range contents {
		if t, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}
