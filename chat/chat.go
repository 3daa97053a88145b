package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/pflag"

	"github.com/agentgw/agentgw/contextvars"
)

// chatOptions are the flags of `agentgw chat`.
type chatOptions struct {
	url, agent, command, file, selection, dir, model, token, bearer string
	// contextID continues a conversation the gateway keeps.
	contextID string
	// task, when set, shows a hand-off task's messages instead of asking.
	task   string
	rules  []string
	prompt string
	// interactive forces the choices prompt on; once forces it off. Without
	// either, it is on when stdin is a terminal.
	interactive, once bool
	// allowTools lets the agent's frontend tools run without asking.
	allowTools bool
	// sel is the parsed --selection, nil when none was given.
	sel *contextvars.Selection
}

// Long describes `agentgw chat` for its help.
const Long = `Ask an agent of a running gateway the way an IDE plugin does, and print its
answer: PROMPT is the prompt's words joined with spaces; "-" reads it from
stdin.

On a terminal, the answer's buttons and tree nodes are offered as numbered
choices (see --interactive, --once). The agent may ask chat to read, list
and search files in --dir (see --allow-tools). --task shows a hand-off
task's messages instead of asking.`

// Command is ` + "`agentgw chat`" + `: the values of its flags, which NewCommand
// defines, and Run.
type Command struct {
	o chatOptions
}

// NewCommand defines the flags of ` + "`agentgw chat`" + ` on fs, their defaults
// read through getenv (AGENTGW_URL, AGENTGW_TOKEN, AGENTGW_BEARER).
func NewCommand(fs *pflag.FlagSet, getenv func(string) string) *Command {
	c := &Command{}
	defineFlags(fs, &c.o, getenv)
	return c
}

// Run runs ` + "`agentgw chat`" + ` once fs has been parsed, with the prompt's
// words args, and returns the exit code: 0 when the answer was shown, 1
// when the request or the agent failed, 2 for bad flags.
func (c *Command) Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o := c.o
	if o.interactive && o.once {
		fmt.Fprintln(stderr, "agentgw chat: --interactive and --once exclude each other")
		return 2
	}
	if err := o.parseSelection(); err != nil {
		fmt.Fprintln(stderr, "agentgw chat:", err)
		return 2
	}
	o.prompt = strings.Join(args, " ")
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
	cl := &chatClient{opts: o, http: http.DefaultClient, out: stdout, errOut: stderr}
	if o.task != "" {
		if err := cl.showTask(ctx, o.task); err != nil {
			fmt.Fprintln(stderr, "agentgw chat:", err)
			return 1
		}
		return 0
	}
	if !o.once && (o.interactive || stdinIsTerminal(stdin)) {
		cl.in = newLineReader(stdin, !stdinIsTerminal(stdin))
	}
	if err := cl.run(ctx); err != nil {
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

// defineFlags defines the flags of `agentgw chat` on fs, over o.
func defineFlags(fs *pflag.FlagSet, o *chatOptions, getenv func(string) string) {
	fs.StringVar(&o.url, "url", firstNonEmpty(getenv("AGENTGW_URL"), "http://localhost:18080"), "gateway `URL` (env AGENTGW_URL)")
	fs.StringVar(&o.agent, "agent", "hello", "agent `name`")
	fs.StringVar(&o.command, "command", "", "command `name` (default: the agent's default command)")
	fs.StringVar(&o.file, "file", "", "the `file` open in the \"editor\" (activeEditor)")
	fs.StringVar(&o.selection, "selection", "", "the selection in --file: `L1:C1-L2:C2`, L1-L2 or L")
	fs.StringVar(&o.dir, "dir", ".", "the workspace `directory` (git, package files, and the files the agent's tools read)")
	fs.StringVar(&o.task, "task", "", "show the messages of the hand-off task `id` (who handed what to whom, and the answers) and exit")
	fs.StringVar(&o.contextID, "context", "", "continue the conversation `id` the gateway keeps (sent as contextId; a new id starts one)")
	fs.StringVar(&o.model, "model", "", "`model` to ask for (sent as the request's model)")
	fs.StringVar(&o.token, "token", getenv("AGENTGW_TOKEN"), "gateway `token` for inbound auth (env AGENTGW_TOKEN)")
	fs.StringVar(&o.bearer, "bearer", getenv("AGENTGW_BEARER"), "`token` sent as Authorization: Bearer, which a forward-auth gateway passes to the model platform (env AGENTGW_BEARER)")
	fs.StringArrayVar(&o.rules, "rule", nil, "a global prompt (rule) `text` to send; repeatable")
	fs.BoolVar(&o.interactive, "interactive", false, "offer the answer's actions as numbered choices and send what you pick, even when stdin is not a terminal")
	fs.BoolVar(&o.once, "once", false, "print one answer and exit, never offering its actions as choices")
	fs.BoolVar(&o.allowTools, "allow-tools", false, "let the agent run chat's tools ("+toolNames()+", confined to --dir) without asking; "+
		"without it, when chat offers choices (a terminal, --interactive) it runs them, asking first when a call carries a prompt, and otherwise it declines them")
}

// stdinIsTerminal reports whether stdin is a terminal, as isTerminal does
// for an output.
func stdinIsTerminal(stdin io.Reader) bool {
	f, ok := stdin.(*os.File)
	return ok && isTerminal(f)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// firstNonEmpty returns the first of s that is not empty.
func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// AgentNames asks the gateway at --url (with --token, --bearer) for its
// agents (GET /agents) and returns their names: what --agent completes to.
func (c *Command) AgentNames(ctx context.Context) ([]string, error) {
	cl := &chatClient{opts: c.o, http: http.DefaultClient}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(c.o.url, "/")+"/agents", nil)
	if err != nil {
		return nil, fmt.Errorf("listing the agents: %w", err)
	}
	cl.authorize(req)
	resp, err := cl.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reaching the gateway: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, errorResponse(resp)
	}
	var list struct {
		Agents []struct{ Name string }
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&list); err != nil {
		return nil, fmt.Errorf("reading the agents: %w", err)
	}
	names := make([]string, 0, len(list.Agents))
	for _, a := range list.Agents {
		names = append(names, a.Name)
	}
	return names, nil
}
