package collab

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/agentgw/agentgw/agent/dispatch"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/remote"
)

// Defaults of an Asker.
const (
	// DefaultTimeout is how long an ask waits for its response (the seed's
	// 30000 ms).
	DefaultTimeout = 30 * time.Second
	// DefaultMaxDepth bounds a chain of asks: an agent asked by an agent
	// asked by ... at most this many asks deep.
	DefaultMaxDepth = 4
	// DefaultCommand is the command a request runs when it names none.
	DefaultCommand = "default"
)

// Why Ask returned without a response; the errors it returns wrap one.
var (
	// ErrTimeout: the timeout, or the caller's own deadline, passed first;
	// a CANCEL was sent.
	ErrTimeout = errors.New("no response in time")
	// ErrCanceled: the caller went away (ctx was cancelled) first; a
	// CANCEL was sent.
	ErrCanceled = errors.New("the ask was cancelled")
	// ErrRefused: the request was not sent: an agent asking itself, a
	// chain of asks too deep, no agent named, no way to reach it, or a
	// stored key's scope that does not admit it (then the error is also
	// an *apierr.Error, FORBIDDEN: see checkScope).
	ErrRefused = errors.New("the ask was refused")
)

// errOwnTimeout is the cause of an ask's own deadline.
var errOwnTimeout = errors.New("ask timeout")

// Config configures an Asker.
type Config struct {
	// Local runs the agents of this gateway for an ask made outside any
	// run (ctx carries no dispatch.Local); nil: such an ask to a local
	// agent answers with an error. An ask from a run (the ask step, the
	// ask_agent tool) goes through the runner running it, which its ctx
	// carries: the gateway builds the step kinds and tools holding the
	// Asker before that runner.
	Local dispatch.Local
	// Remote says which agents are remote, and where; nil: none are.
	Remote Resolver
	// Forwarder carries requests to remote agents.
	Forwarder remote.Forwarder
	// MaxDepth bounds chains of asks; 0 means DefaultMaxDepth.
	MaxDepth int
	// CancelGrace is how long Ask waits, after a CANCEL, for the asked
	// run to stop before it returns anyway; 0 means 2s.
	CancelGrace time.Duration
	// NewID makes message ids; nil means random UUIDs.
	NewID func() string
	// Now stamps messages; nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

// Asker sends requests to other agents and waits for their responses. It
// is safe for concurrent use.
type Asker struct {
	cfg Config
}

// New returns an Asker.
func New(cfg Config) *Asker {
	if cfg.MaxDepth <= 0 {
		cfg.MaxDepth = DefaultMaxDepth
	}
	if cfg.CancelGrace <= 0 {
		cfg.CancelGrace = 2 * time.Second
	}
	if cfg.NewID == nil {
		cfg.NewID = uuid.NewString
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Asker{cfg: cfg}
}

// Options are an ask's settings beside its parties and question.
type Options struct {
	// Command is the asked agent's command; "" means default.
	Command string
	// Timeout bounds the wait for the response; 0 means DefaultTimeout.
	Timeout time.Duration
	// OnProgress receives each PROGRESS message, in order, on the
	// goroutine that called Ask and never after Ask returned.
	OnProgress func(Message)
	// Header is the caller's request header, given to the asked agent's
	// run (its forward auth policy) or to the remote agent.
	Header http.Header
}

// askRequest is a request on its way.
type askRequest struct {
	id, from, to, command, question string
	header                          http.Header
}

// Ask sends question from agent from to agent to and waits for its
// response, passing its progress to o.OnProgress. It returns the response
// and the whole exchange (the request, the progress, the response or the
// cancel). A response says success or error (ResponseContent.Status): an
// error the asked agent reported is a response, not an error of Ask. Ask
// fails only without a response: when it refused to ask (ErrRefused), or
// when the timeout passed (ErrTimeout) or ctx was cancelled (ErrCanceled)
// first, after sending a CANCEL, which stops the asked agent's run (a
// local run's context is cancelled, a remote agent's connection closed).
// An ask from a run of a request with a stored key's scope (or of a
// schedule or hand-off that carries one: access.FromContext) is held to
// it: see checkScope.
func (a *Asker) Ask(ctx context.Context, from, to, question string, o Options) (Message, []Message, error) {
	if err := a.check(ctx, from, to); err != nil {
		return Message{}, nil, err
	}
	command := cmp.Or(o.Command, DefaultCommand)
	if err := checkScope(ctx, to, command); err != nil {
		return Message{}, nil, err
	}
	timeout := cmp.Or(o.Timeout, DefaultTimeout)
	req := &askRequest{id: a.cfg.NewID(), from: from, to: to, command: command, question: question, header: o.Header}
	start, err := a.transport(ctx, req)
	if err != nil {
		return Message{}, nil, err
	}
	request := a.message(req.id, TypeRequest, from, to, RequestContent{Command: req.command, Question: question},
		map[string]any{"timeout": timeout.Milliseconds(), "depth": Depth(ctx) + 1, "transport": start.name})
	x := &exchange{a: a, req: req, onProgress: o.OnProgress, msgs: []Message{request}, transport: start.name}

	askCtx, stop := context.WithTimeoutCause(ctx, timeout, errOwnTimeout)
	defer stop()
	runCtx, cancelRun := context.WithCancelCause(withAsked(askCtx, to))
	defer cancelRun(nil)
	c := newCollector(runCtx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		start.run(runCtx, req, c)
	}()
	a.cfg.Logger.Debug("ask sent", "request_id", req.id, "from", from, "to", to, "command", req.command, "transport", start.name)
	for {
		select {
		case line := <-c.lines:
			x.progress(line)
		case <-done:
			if askCtx.Err() == nil {
				return x.respond(c)
			}
			return x.cancel(ctx, askCtx, timeout, c, cancelRun, done)
		case <-askCtx.Done():
			return x.cancel(ctx, askCtx, timeout, c, cancelRun, done)
		}
	}
}

// check refuses an ask that would loop: to is from, or the chain of asks
// ctx is in is already MaxDepth deep.
func (a *Asker) check(ctx context.Context, from, to string) error {
	switch chain := chainOf(ctx); {
	case to == "":
		return fmt.Errorf("ask: no agent named to ask: %w", ErrRefused)
	case to == from:
		return fmt.Errorf("agent %q may not ask itself: %w", to, ErrRefused)
	case len(chain) >= a.cfg.MaxDepth:
		return fmt.Errorf("asking agent %q would make the chain of asks %s → %s deeper than %d: %w",
			to, strings.Join(chain, " → "), to, a.cfg.MaxDepth, ErrRefused)
	}
	return nil
}

// checkScope refuses, FORBIDDEN, an ask of command of agent to that the
// scope ctx carries (access.FromContext: the stored key of the request
// that started the run, kept by the schedule or hand-off that started it)
// does not admit: an ask may reach no more than its key could by a plain
// request, the rule the hub holds hand-offs to. Local and remote agents
// alike, as POST /agents/{name} checks them: the command is the one the
// ask sends. Nothing is sent. A caller without a scope (no key, a static
// token) is not checked. The error wraps ErrRefused.
func checkScope(ctx context.Context, to, command string) error {
	who, ok := access.FromContext(ctx)
	if !ok || who.MayCall(to, command) {
		return nil
	}
	return apierr.Errorf(apierr.CodeForbidden, "this key may not ask command %q of agent %q", command, to).
		Suggest("GET /agents lists what this key may call; ask an admin to widen the key's agents").
		Wrap(ErrRefused)
}

// transport is how a request reaches its agent.
type transport struct {
	name string // local or remote
	run  func(ctx context.Context, req *askRequest, c *collector)
}

// transport is how req reaches its agent: a remote agent's through the
// Forwarder, a local one's through the runner of the asking run (ctx),
// else Config.Local.
func (a *Asker) transport(ctx context.Context, req *askRequest) (transport, error) {
	if a.cfg.Remote != nil {
		if endpoint, ok := a.cfg.Remote(req.to); ok {
			fw := a.cfg.Forwarder
			if fw == nil {
				return transport{}, fmt.Errorf("agent %q is remote, and this gateway forwards to no remote agent: %w", req.to, ErrRefused)
			}
			return transport{name: "remote", run: func(ctx context.Context, req *askRequest, c *collector) {
				forward(ctx, fw, endpoint, req, c)
			}}, nil
		}
	}
	l, ok := dispatch.LocalFrom(ctx)
	if !ok {
		l = a.cfg.Local
	}
	return transport{name: "local", run: func(ctx context.Context, req *askRequest, c *collector) {
		if l == nil {
			_ = c.Error(errNoRunner(req.to))
			return
		}
		runLocal(ctx, l, req, c)
	}}, nil
}

// message makes a message; metadata nil means {}.
func (a *Asker) message(id string, typ Type, from, to string, content any, meta map[string]any) Message {
	if meta == nil {
		meta = map[string]any{}
	}
	return Message{ID: id, Type: typ, FromAgent: from, ToAgent: to, Content: content, Metadata: meta, Timestamp: a.cfg.Now().UTC()}
}
