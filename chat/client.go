package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// chatClient behaves like an IDE plugin: it reads the command's context
// strategy, collects the context locally, calls the agent and renders the
// stream; with in set it then offers the answer's actions as choices.
type chatClient struct {
	opts   chatOptions
	http   *http.Client
	out    io.Writer
	errOut io.Writer
	// in reads the user's choices; nil when chat never prompts.
	in *lineReader
	// commands maps the agent's command names to their context variables,
	// read once from GET /agents/{name}.
	commands map[string][]platformVar
	// tools runs the agent's tool calls; made on the first one.
	tools *toolbox
	// toolRounds counts the answers with tool calls so far.
	toolRounds int
}

func (c *chatClient) run(ctx context.Context) error {
	body, err := c.request(ctx, c.opts.command, c.opts.prompt)
	if err != nil {
		return err
	}
	if c.in == nil {
		_, _, err := c.exchange(ctx, body)
		return err
	}
	return c.converse(ctx, body)
}

// request builds a normal agent request for command ("" for the default)
// with prompt as the user's input, collecting the context the command's
// strategy asks for.
func (c *chatClient) request(ctx context.Context, command, prompt string) (map[string]any, error) {
	vars, err := c.strategy(ctx, command)
	if err != nil {
		return nil, err
	}
	o := c.opts
	o.prompt = prompt
	set, notes := collectVars(o, vars)
	for _, n := range notes {
		fmt.Fprintln(c.errOut, "note:", n)
	}
	body := map[string]any{"agent": c.opts.agent, "contextVariables": set}
	if command != "" {
		body["command"] = command
	}
	if c.opts.model != "" {
		body["model"] = c.opts.model
	}
	if c.opts.contextID != "" {
		body["contextId"] = c.opts.contextID
	}
	return body, nil
}

// platformVar is a context variable as GET /agents/{name} describes it.
type platformVar struct {
	Name            string         `json:"name"`
	ResolverOptions map[string]any `json:"resolverOptions"`
	ResolveOptions  map[string]any `json:"resolveOptions"`
}

// strategy returns the context variables of command ("" for the default),
// fetching the agent's definition the first time. An unknown command has
// none: the gateway answers it with COMMAND_NOT_FOUND and a suggestion.
func (c *chatClient) strategy(ctx context.Context, command string) ([]platformVar, error) {
	if c.commands == nil {
		cmds, err := c.fetchCommands(ctx)
		if err != nil {
			return nil, err
		}
		c.commands = cmds
	}
	return c.commands[firstNonEmpty(command, "default")], nil
}

// fetchCommands reads GET /agents/{name} into command name → variables.
func (c *chatClient) fetchCommands(ctx context.Context) (map[string][]platformVar, error) {
	resp, err := c.call(ctx, http.MethodGet, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var def struct {
		Commands []struct {
			Name     string `json:"name"`
			Strategy *struct {
				ContextVariables []platformVar `json:"contextVariables"`
			} `json:"contextVariableCollectionStrategy"`
		} `json:"commands"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&def); err != nil {
		return nil, fmt.Errorf("reading agent %s: %w", c.opts.agent, err)
	}
	cmds := make(map[string][]platformVar, len(def.Commands))
	for _, cmd := range def.Commands {
		if _, dup := cmds[cmd.Name]; dup {
			continue // the first wins, as before
		}
		cmds[cmd.Name] = nil
		if cmd.Strategy != nil {
			cmds[cmd.Name] = cmd.Strategy.ContextVariables
		}
	}
	return cmds, nil
}

func (c *chatClient) endpoint(path string) string {
	return strings.TrimSuffix(c.opts.url, "/") + path
}

// call sends a GET (body nil) or a POST of the JSON body to the agent's
// endpoint with the client's credentials; a status other than 200 is the
// gateway's error. The caller closes the body.
func (c *chatClient) call(ctx context.Context, method string, body []byte) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.endpoint("/agents/"+url.PathEscape(c.opts.agent)), rd)
	if err != nil {
		return nil, fmt.Errorf("building the agent request: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "text/event-stream")
	}
	c.authorize(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reaching the gateway: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		return nil, errorResponse(resp)
	}
	return resp, nil
}

func (c *chatClient) authorize(req *http.Request) {
	if c.opts.token != "" {
		req.Header.Set("X-Agentgw-Token", c.opts.token)
	}
	if c.opts.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+c.opts.bearer)
	}
}

// streamReply is what an answer carried besides its text: the actions kept
// for the choices, and the tool calls.
type streamReply struct {
	actions []wireAction
	calls   []wireToolCall
}

// send posts an agent request and renders the answer. When chat prompts, the
// answer's actions are kept and returned instead of printed. The reply is
// nil when ctx ended.
func (c *chatClient) send(ctx context.Context, body map[string]any) (*streamReply, error) {
	data, err := encodeBody(body)
	if err != nil {
		return nil, err
	}
	resp, err := c.call(ctx, http.MethodPost, data)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	r := &streamRenderer{out: c.out, keep: c.in != nil}
	if err := r.render(resp.Body); err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, nil
		}
		return nil, err
	}
	if r.failed {
		return nil, errors.New("the agent reported an error")
	}
	return &streamReply{actions: r.actions, calls: r.calls}, nil
}

// encodeBody encodes a request body without escaping HTML, so that states
// and code go back as they came (JSON states lose only insignificant
// whitespace).
func encodeBody(body map[string]any) ([]byte, error) {
	var data bytes.Buffer
	enc := json.NewEncoder(&data)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	return data.Bytes(), nil
}

// errorResponse turns an ERROR_RESPONSE into an error.
func errorResponse(resp *http.Response) error {
	var e struct {
		Content struct {
			ErrorCode       string `json:"errorCode"`
			Message         string `json:"message"`
			SuggestedAction string `json:"suggestedAction"`
		} `json:"content"`
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if json.Unmarshal(data, &e) != nil || e.Content.ErrorCode == "" {
		return fmt.Errorf("the gateway answered %s: %s", resp.Status, strings.TrimSpace(string(data)))
	}
	msg := fmt.Sprintf("%s (%d): %s", e.Content.ErrorCode, resp.StatusCode, e.Content.Message)
	if e.Content.SuggestedAction != "" {
		msg += "\n  hint: " + e.Content.SuggestedAction
	}
	return errors.New(msg)
}
