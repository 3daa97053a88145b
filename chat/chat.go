package chat

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"

	"github.com/agentgw/agentgw/contextvars"
)

// chatOptions are the flags of `agentgw chat`.
type chatOptions struct {
	url, agent, command, file, selection, dir, model, token, bearer string
	// contextID continues a conversation the gateway keeps.
	contextID string
	// task, when set, shows a hand-off task's messages instead of asking.
	task   string
	rules  stringList
	prompt string
	// interactive forces the choices prompt on; once forces it off. Without
	// either, it is on when stdin is a terminal.
	interactive, once bool
	// allowTools lets the agent's frontend tools run without asking.
	allowTools bool
	// sel is the parsed --selection, nil when none was given.
	sel *contextvars.Selection
}

// Main runs `agentgw chat` with its command-line arguments (after "chat"):
// it parses the flags, reads the environment through getenv, and returns
// the exit code: 0 when the answer was shown, 1 when the request or the
// agent failed, 2 for bad flags.
func Main(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	o := chatOptions{}
	fs := newChatFlags(&o, getenv, stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if o.interactive && o.once {
		fmt.Fprintln(stderr, "agentgw chat: --interactive and --once exclude each other")
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
	if o.task != "" {
		if err := c.showTask(ctx, o.task); err != nil {
			fmt.Fprintln(stderr, "agentgw chat:", err)
			return 1
		}
		return 0
	}
	if !o.once && (o.interactive || stdinIsTerminal(stdin)) {
		c.in = newLineReader(stdin, !stdinIsTerminal(stdin))
	}
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
	fs.StringVar(&o.dir, "dir", ".", "the workspace `directory` (git, package files, and the files the agent's tools read)")
	fs.StringVar(&o.task, "task", "", "show the messages of the hand-off task `id` (who handed what to whom, and the answers) and exit")
	fs.StringVar(&o.contextID, "context", "", "continue the conversation `id` the gateway keeps (sent as contextId; a new id starts one)")
	fs.StringVar(&o.model, "model", "", "`model` to ask for (sent as the request's model)")
	fs.StringVar(&o.token, "token", getenv("AGENTGW_TOKEN"), "gateway `token` for inbound auth (env AGENTGW_TOKEN)")
	fs.StringVar(&o.bearer, "bearer", getenv("AGENTGW_BEARER"), "`token` sent as Authorization: Bearer, which a forward-auth gateway passes to the model platform (env AGENTGW_BEARER)")
	fs.Var(&o.rules, "rule", "a global prompt (rule) to send; repeatable")
	fs.BoolVar(&o.interactive, "interactive", false, "offer the answer's actions as numbered choices and send what you pick, even when stdin is not a terminal")
	fs.BoolVar(&o.once, "once", false, "print one answer and exit, never offering its actions as choices")
	fs.BoolVar(&o.allowTools, "allow-tools", false, "let the agent run chat's tools ("+toolNames()+", confined to --dir) without asking; "+
		"without it, when chat offers choices (a terminal, --interactive) it runs them, asking first when a call carries a prompt, and otherwise it declines them")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: agentgw chat [flags] [PROMPT...]   (PROMPT \"-\" reads it from stdin)")
		fmt.Fprintln(stderr, "On a terminal, the answer's buttons and tree nodes are offered as numbered choices (see --interactive, --once).")
		fmt.Fprintln(stderr, "The agent may ask chat to read, list and search files in --dir (see --allow-tools).")
		fs.PrintDefaults()
	}
	return fs
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

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }

// Set appends a value.
func (s *stringList) Set(v string) error {
	*s = append(*s, v)
	return nil
}
