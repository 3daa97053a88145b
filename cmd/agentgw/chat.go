package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"

	"github.com/agentgw/agentgw/contextvars"
)

// chatOptions are the flags of `agentgw chat`.
type chatOptions struct {
	url, agent, command, file, selection, dir, model, token, bearer string
	rules                                                           stringList
	prompt                                                          string
	// sel is the parsed --selection, nil when none was given.
	sel *contextvars.Selection
}

func cmdChat(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	o := chatOptions{}
	fs := newChatFlags(&o, getenv, stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := o.parseSelection(); err != nil {
		fmt.Fprintln(stderr, "agentgw chat:", err)
		return 2
	}
	o.prompt = strings.Join(fs.Args(), " ")
	if o.prompt == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			fmt.Fprintln(stderr, "agentgw chat: reading the prompt:", err)
			return 1
		}
		o.prompt = strings.TrimSpace(string(b))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	c := &chatClient{opts: o, http: http.DefaultClient, out: stdout, errOut: stderr}
	if err := c.run(ctx); err != nil {
		fmt.Fprintln(stderr, "agentgw chat:", err)
		return 1
	}
	return 0
}

// parseSelection checks --selection before anything is sent, so that a typo
// is an error rather than a request without the editor.
func (o *chatOptions) parseSelection() error {
	if o.selection == "" {
		return nil
	}
	if o.file == "" {
		return errors.New("--selection needs --file")
	}
	s, err := contextvars.ParseSelection(o.selection)
	if err != nil {
		return fmt.Errorf("--selection: %w", err)
	}
	o.sel = &s
	return nil
}

// newChatFlags defines the flags of `agentgw chat` over o.
func newChatFlags(o *chatOptions, getenv func(string) string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.url, "url", firstNonEmpty(getenv("AGENTGW_URL"), "http://localhost:18080"), "gateway `URL` (env AGENTGW_URL)")
	fs.StringVar(&o.agent, "agent", "hello", "agent `name`")
	fs.StringVar(&o.command, "command", "", "command `name` (default: the agent's default command)")
	fs.StringVar(&o.file, "file", "", "the `file` open in the \"editor\" (activeEditor)")
	fs.StringVar(&o.selection, "selection", "", "the selection in --file: `L1:C1-L2:C2`, L1-L2 or L")
	fs.StringVar(&o.dir, "dir", ".", "the workspace `directory` (git and package files)")
	fs.StringVar(&o.model, "model", "", "`model` to ask for (sent as the request's model)")
	fs.StringVar(&o.token, "token", getenv("AGENTGW_TOKEN"), "gateway `token` for inbound auth (env AGENTGW_TOKEN)")
	fs.StringVar(&o.bearer, "bearer", getenv("AGENTGW_BEARER"), "`token` sent as Authorization: Bearer, which a forward-auth gateway passes to the model platform (env AGENTGW_BEARER)")
	fs.Var(&o.rules, "rule", "a global prompt (rule) to send; repeatable")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: agentgw chat [flags] [PROMPT...]   (PROMPT \"-\" reads it from stdin)")
		fs.PrintDefaults()
	}
	return fs
}

// chatClient behaves like an IDE plugin: it reads the command's context
// strategy, collects the context locally, calls the agent and renders the
// stream.
type chatClient struct {
	opts   chatOptions
	http   *http.Client
	out    io.Writer
	errOut io.Writer
}

func (c *chatClient) run(ctx context.Context) error {
	vars, err := c.strategy(ctx)
	if err != nil {
		return err
	}
	set, notes := collect(c.opts, vars)
	for _, n := range notes {
		fmt.Fprintln(c.errOut, "note:", n)
	}
	body := map[string]any{"agent": c.opts.agent, "contextVariables": set}
	if c.opts.command != "" {
		body["command"] = c.opts.command
	}
	if c.opts.model != "" {
		body["model"] = c.opts.model
	}
	return c.send(ctx, body)
}

// platformVar is a context variable as GET /agents/{name} describes it.
type platformVar struct {
	Name            string         `json:"name"`
	ResolverOptions map[string]any `json:"resolverOptions"`
	ResolveOptions  map[string]any `json:"resolveOptions"`
}

// strategy fetches the agent and returns the command's context variables.
func (c *chatClient) strategy(ctx context.Context) ([]platformVar, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.endpoint("/agents/"+url.PathEscape(c.opts.agent)), nil)
	if err != nil {
		return nil, err
	}
	c.authorize(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reaching the gateway: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, errorResponse(resp)
	}
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
	want := firstNonEmpty(c.opts.command, "default")
	for _, cmd := range def.Commands {
		if cmd.Name == want {
			if cmd.Strategy == nil {
				return nil, nil
			}
			return cmd.Strategy.ContextVariables, nil
		}
	}
	// Let the gateway answer with COMMAND_NOT_FOUND and its suggestion.
	return nil, nil
}

func (c *chatClient) endpoint(path string) string {
	return strings.TrimSuffix(c.opts.url, "/") + path
}

func (c *chatClient) authorize(req *http.Request) {
	if c.opts.token != "" {
		req.Header.Set("X-Agentgw-Token", c.opts.token)
	}
	if c.opts.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+c.opts.bearer)
	}
}

// send posts an agent request and renders the answer.
func (c *chatClient) send(ctx context.Context, body map[string]any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("encoding the request: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint("/agents/"+url.PathEscape(c.opts.agent)), bytes.NewReader(data))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	c.authorize(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("reaching the gateway: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errorResponse(resp)
	}
	r := &streamRenderer{out: c.out}
	if err := r.render(resp.Body); err != nil {
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	if r.failed {
		return errors.New("the agent reported an error")
	}
	return nil
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

// collect gathers the variables the command asks for, the way a plugin
// does, and returns notes on what could not be collected.
func collect(o chatOptions, vars []platformVar) (*contextvars.Set, []string) {
	set := &contextvars.Set{UserInputPrompt: o.prompt}
	var notes []string
	note := func(what string, err error) { notes = append(notes, fmt.Sprintf("%s not collected: %v", what, err)) }
	if o.file != "" && !declared(vars, contextvars.NameActiveEditor) {
		vars = append(vars, platformVar{Name: contextvars.NameActiveEditor})
	}
	for _, v := range vars {
		raw := v.ResolverOptions
		if raw == nil {
			raw = v.ResolveOptions
		}
		opts, _, _ := contextvars.ParseOptions(v.Name, raw)
		var err error
		switch v.Name {
		case contextvars.NameActiveEditor:
			set.ActiveEditor, err = collectEditor(o, opts)
		case contextvars.NameVCS:
			set.VCS, err = contextvars.CollectVCS(o.dir)
		case contextvars.NameUserInfo:
			set.UserInfo, err = contextvars.CollectUserInfo(o.dir)
		case contextvars.NamePackageFiles:
			n := 0
			if opts.MaximumNumber != nil {
				n = *opts.MaximumNumber
			}
			set.PackageFiles, err = contextvars.CollectPackageFiles(o.dir, n)
		}
		if err != nil {
			note(v.Name, err)
		}
	}
	for _, r := range o.rules {
		set.GlobalPrompts = append(set.GlobalPrompts, contextvars.Prompt{Role: "system", Content: r})
	}
	return set, notes
}

func declared(vars []platformVar, name string) bool {
	for _, v := range vars {
		if v.Name == name {
			return true
		}
	}
	return false
}

func collectEditor(o chatOptions, opts contextvars.Options) (*contextvars.Editor, error) {
	if o.file == "" {
		return nil, errors.New("no --file given")
	}
	return contextvars.CollectEditor(o.file, o.sel, opts)
}
