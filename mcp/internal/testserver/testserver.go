// Package testserver builds the MCP server the mcp package's tests talk to,
// in-process over HTTP and as a stdio program (see stdioserver).
package testserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Hooks lets an in-process test observe the server.
type Hooks struct {
	// Started, if set, receives the name of the slow tool when it starts.
	Started chan<- string
	// Cancelled, if set, receives the name of a tool whose context ended.
	Cancelled chan<- string
}

// SlowLimit bounds the slow tool's wait. A client whose call times out
// sends the cancellation in a request of its own, which over HTTP can reach
// the server before the call does; the server then never cancels the call,
// and closing the session waits for it.
const SlowLimit = 10 * time.Second

// AddIn is the input of the add tool.
type AddIn struct {
	A float64 `json:"a" jsonschema:"the first addend"`
	B float64 `json:"b" jsonschema:"the second addend"`
}

// AddOut is the output of the add tool.
type AddOut struct {
	Sum float64 `json:"sum"`
}

// New returns a server with the test tools: echo, add, fail, slow, env, pid,
// hang, json and multi. It lists two tools per page, so clients must follow
// the pagination cursor.
func New(h Hooks) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "testserver", Version: "v1"}, &sdk.ServerOptions{PageSize: 2})
	raw := func(name, desc string, fn func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error)) {
		s.AddTool(&sdk.Tool{Name: name, Description: desc, InputSchema: map[string]any{"type": "object"}}, fn)
	}
	raw("echo", "Echoes its text argument.", func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		args, err := stringArgs(req)
		if err != nil {
			return nil, err
		}
		return text(args["text"]), nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Adds two numbers."},
		func(_ context.Context, _ *sdk.CallToolRequest, in AddIn) (*sdk.CallToolResult, AddOut, error) {
			return nil, AddOut{Sum: in.A + in.B}, nil
		})
	raw("fail", "Always fails.", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		res := text("it failed")
		res.IsError = true
		return res, nil
	})
	raw("slow", "Waits until cancelled, for at most SlowLimit.", func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if h.Started != nil {
			h.Started <- "slow"
		}
		select {
		case <-ctx.Done():
		case <-time.After(SlowLimit):
			return nil, fmt.Errorf("slow: not cancelled within %v", SlowLimit)
		}
		if h.Cancelled != nil {
			h.Cancelled <- "slow"
		}
		return nil, ctx.Err()
	})
	addProcessTools(s, raw)
	return s
}

// addProcessTools adds the tools that report on the server process.
func addProcessTools(s *sdk.Server, raw func(string, string, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error))) {
	raw("env", "Reports the environment, one variable a line.", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text(strings.Join(os.Environ(), "\n")), nil
	})
	raw("pid", "Reports the process id.", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text(strconv.Itoa(os.Getpid())), nil
	})
	raw("hang", "The first time (no marker file yet) writes the pid to the marker and hangs; then answers at once.",
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			args, err := stringArgs(req)
			if err != nil {
				return nil, err
			}
			if _, err := os.Stat(args["marker"]); err == nil {
				return text("again " + strconv.Itoa(os.Getpid())), nil
			}
			if err := os.WriteFile(args["marker"], []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
				return nil, err
			}
			<-ctx.Done()
			return nil, ctx.Err()
		})
	raw("json", "Returns one text that is JSON.", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return text(`{"a":1}`), nil
	})
	raw("multi", "Returns two texts and an image.", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{
			&sdk.TextContent{Text: "one"}, &sdk.ImageContent{Data: []byte("png"), MIMEType: "image/png"}, &sdk.TextContent{Text: "two"},
		}}, nil
	})

}

// text is a result with one text content.
func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// stringArgs decodes arguments whose values are all strings.
func stringArgs(req *sdk.CallToolRequest) (map[string]string, error) {
	args := map[string]string{}
	if len(req.Params.Arguments) == 0 {
		return args, nil
	}
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
		return nil, fmt.Errorf("decoding arguments: %w", err)
	}
	return args, nil
}
