package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/llm"
)

// RunnerConfig holds what the runner needs besides the registry.
type RunnerConfig struct {
	// LLM is the upstream client; nil means no upstream is configured and
	// model commands answer with UPSTREAM_NOT_CONFIGURED.
	LLM *llm.Client
	// Signer signs and verifies action state.
	Signer *actions.Signer
	// DefaultModel is used when neither the command, the agent nor the
	// request names a model.
	DefaultModel string
	Budget       BudgetConfig
	// AllowRequestDefinitions lets a request's agentDefinition define an
	// agent the gateway does not know (message templates and context only).
	AllowRequestDefinitions bool
	Logger                  *slog.Logger
}

// Runner executes commands of the registry's agents.
type Runner struct {
	reg     *Registry
	cfg     RunnerConfig
	reqDefs *definitionCache
}

// NewRunner returns a runner over reg.
func NewRunner(reg *Registry, cfg RunnerConfig) *Runner {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Signer == nil {
		cfg.Signer = actions.NewSigner(nil, 0)
	}
	return &Runner{reg: reg, cfg: cfg, reqDefs: newDefinitionCache(256)}
}

// Registry returns the runner's registry.
func (r *Runner) Registry() *Registry { return r.reg }

// Run is one prepared request: everything that can fail before the stream
// starts has been checked.
type Run struct {
	cfg      *RunnerConfig
	req      *Request
	agent    *Agent
	cmd      *command
	model    string
	extra    []llm.Field
	turns    []llm.Message
	feedback *actions.Claims
	log      *slog.Logger
	data     map[string]any
}

// Agent names the run's agent.
func (run *Run) Agent() string { return run.agent.Name() }

// Command names the run's command.
func (run *Run) Command() string { return run.cmd.def.Name }

// Model is the upstream model the run uses, or "" when the command does
// not call a model.
func (run *Run) Model() string {
	if len(run.cmd.system)+len(run.cmd.others) == 0 {
		return ""
	}
	return run.model
}

// Prepare resolves the agent and command, verifies feedback state, decodes
// and re-applies the context options. Its errors are *Error, for the client
// before any stream starts.
func (r *Runner) Prepare(req *Request) (*Run, error) {
	if req.Agent == "" {
		return nil, Errorf(CodeBadRequest, "no agent named: put \"agent\" in the body or call POST /agents/{name}").Suggest("GET /agents lists the agents")
	}
	a, err := r.resolveAgent(req)
	if err != nil {
		return nil, err
	}
	run := &Run{cfg: &r.cfg, req: req, agent: a, turns: req.Messages}
	name := req.Command
	if req.Action != nil {
		if name, err = r.verifyFeedback(run); err != nil {
			return nil, err
		}
	}
	if name == "" {
		name = DefaultCommand
	}
	cmd, ok := a.commands[name]
	if !ok {
		return nil, Errorf(CodeCommandNotFound, "agent %q has no command %q%s", a.Name(), name, DidYouMean(name, a.CommandNames())).
			Suggest(fmt.Sprintf("GET /agents/%s lists its commands", a.Name()))
	}
	run.cmd = cmd
	if req.Context == nil {
		req.Context = &contextvars.Set{}
	}
	for _, v := range cmd.vars {
		if v.required && !req.Context.Has(v.name) {
			return nil, &Error{Code: CodeInvalidContext, Status: 422, Source: SourceClient,
				Message:         fmt.Sprintf("command %q needs the context variable %q, and the request has none", name, v.name),
				SuggestedAction: fmt.Sprintf("collect %q as GET /agents/%s describes", v.name, a.Name())}
		}
		req.Context.Apply(v.name, v.opts)
	}
	run.model = firstNonEmpty(cmd.model.ModelName, req.Model, r.cfg.DefaultModel)
	run.extra = withDefaults(req.Extra, cmd.model.Parameters)
	run.log = r.cfg.Logger.With("request_id", req.ID, "agent", a.Name(), "command", name)
	run.data = run.templateData()
	return run, nil
}

func (r *Runner) resolveAgent(req *Request) (*Agent, error) {
	if a, ok := r.reg.Get(req.Agent); ok {
		return a, nil
	}
	if req.Definition != nil && r.cfg.AllowRequestDefinitions {
		return r.reqDefs.get(req.Agent, req.Definition)
	}
	e := Errorf(CodeAgentNotFound, "no agent named %q%s", req.Agent, DidYouMean(req.Agent, r.reg.Names())).Suggest("GET /agents lists the agents")
	if req.Definition != nil {
		e.Message += "; this gateway does not accept agent definitions carried by requests"
	}
	return nil, e
}

// verifyFeedback checks the echoed state and returns the command it routes to.
func (r *Runner) verifyFeedback(run *Run) (string, error) {
	fb := run.req.Action
	token, ok := fb.StateString()
	if !ok {
		return "", stateInvalid("the action state is not one this gateway issued", nil)
	}
	claims, err := r.cfg.Signer.Verify(token)
	if err != nil {
		return "", stateInvalid("the action state is invalid or expired", err)
	}
	if claims.Agent != run.agent.Name() {
		return "", stateInvalid(fmt.Sprintf("the action state belongs to another agent, not %q", run.agent.Name()), nil)
	}
	if claims.Kind != fb.Action {
		return "", stateInvalid(fmt.Sprintf("the action state is for a %s action, not a %s", claims.Kind, fb.Action), nil)
	}
	if fb.Action == actions.KindTree && claims.TreeID != "" && claims.TreeID != fb.TreeID {
		return "", stateInvalid(fmt.Sprintf("the action state is for tree %q, not %q", claims.TreeID, fb.TreeID), nil)
	}
	run.feedback = claims
	return claims.Command, nil
}

func stateInvalid(msg string, cause error) *Error {
	e := Errorf(CodeStateInvalid, "%s", msg).Suggest("echo the state of the action verbatim; run the command again for a fresh action")
	e.Err = cause
	return e
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// withDefaults adds the command's parameters the request does not set.
func withDefaults(extra []llm.Field, params map[string]any) []llm.Field {
	if len(params) == 0 {
		return extra
	}
	out := slices.Clone(extra)
	for _, k := range slices.Sorted(maps.Keys(params)) {
		if slices.ContainsFunc(extra, func(f llm.Field) bool { return f.Key == k }) {
			continue
		}
		if v, err := json.Marshal(params[k]); err == nil {
			out = append(out, llm.Field{Key: k, Value: v})
		}
	}
	return out
}

// templateData is what templates see: the context variables by name plus
// agent, command and messages.
func (run *Run) templateData() map[string]any {
	data := run.req.Context.TemplateData()
	data["agent"] = run.agent.Name()
	data["command"] = run.cmd.def.Name
	turns := make([]any, 0, len(run.turns))
	for _, m := range run.turns {
		turns = append(turns, map[string]any{"role": m.Role, "content": m.Content})
	}
	data["messages"] = turns
	return data
}

// Execute runs the command, writing to em, and always ends the stream.
func (run *Run) Execute(ctx context.Context, em Emitter) {
	defer em.End()
	if err := run.execute(ctx, em); err != nil {
		var e *Error
		if !errors.As(err, &e) {
			run.log.Error("run failed", "err", err)
			e = Internal(err)
		}
		if e.Code == "CANCELED" {
			return
		}
		if e.Err != nil {
			run.log.Warn("run ended with an error", "code", e.Code, "err", e.Err)
		}
		_ = em.Error(e)
	}
}

func (run *Run) execute(ctx context.Context, em Emitter) error {
	if run.feedback != nil {
		return run.handleFeedback(em)
	}
	cmd := run.cmd
	if cmd.reply == nil && len(cmd.system)+len(cmd.others) == 0 && len(cmd.actions) == 0 {
		return &Error{Code: CodeCommandEmpty, Status: 500, Source: SourceServer,
			Message:         fmt.Sprintf("command %q of agent %q has no reply, messageTemplates or actions, so there is nothing to answer", cmd.def.Name, run.agent.Name()),
			SuggestedAction: "the gateway's operator should give the command a reply or messageTemplates"}
	}
	if cmd.reply != nil {
		s, err := execute(cmd.reply, run.data)
		if err != nil {
			return templateError(err)
		}
		if err := em.Text(s); err != nil {
			return canceled(err)
		}
	}
	if len(cmd.system)+len(cmd.others) > 0 {
		if err := run.callModel(ctx, em); err != nil {
			return err
		}
	}
	return run.emitActions(em, cmd.actions)
}

// emitActions renders, validates, signs and sends actions.
func (run *Run) emitActions(em Emitter, specs []*valueTemplate) error {
	for _, spec := range specs {
		a, err := renderAction(spec, run.data)
		if err != nil {
			return &Error{Code: CodeActionInvalid, Status: 500, Source: SourceServer,
				Message: fmt.Sprintf("an action of command %q is invalid after rendering: %v", run.cmd.def.Name, err), Err: err}
		}
		claims := actions.Claims{Agent: run.agent.Name(), Command: run.cmd.def.Name, Kind: a.Kind}
		if a.Tree != nil {
			claims.TreeID = a.Tree.TreeID
		}
		if a.State, err = run.cfg.Signer.Sign(claims); err != nil {
			return Internal(fmt.Errorf("signing action state: %w", err))
		}
		if err := em.Action(a); err != nil {
			return canceled(err)
		}
	}
	return nil
}

// handleFeedback answers an action feedback request. Commands that declare
// handlers come with plans; until then the answer is polite and final.
func (run *Run) handleFeedback(em Emitter) error {
	fb := run.req.Action
	var msg string
	switch {
	case fb.Action == actions.KindConfirm && !fb.Accepted:
		msg = "OK, nothing was done."
	case fb.Action == actions.KindConfirm:
		msg = "Noted. This action has no follow-up configured."
	default:
		msg = fmt.Sprintf("Nothing to show for %s on node %q.", fb.NodeAction, fb.NodeID)
	}
	return canceled(em.Text(msg))
}

func templateError(err error) *Error {
	return &Error{Code: CodeTemplateError, Status: 500, Source: SourceServer,
		Message: "a template of this command failed: " + templateErrorMessage(err), Err: err,
		SuggestedAction: "the agent's author should check the template with `agentgw lint`"}
}

// canceled turns an emitter failure (the client went away) into a quiet end.
func canceled(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: "CANCELED", Message: "the client went away", Err: err}
}
