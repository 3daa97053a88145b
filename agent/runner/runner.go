package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/dispatch"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/prompt"
	"github.com/agentgw/agentgw/agent/request"
	"github.com/agentgw/agentgw/agent/runstate"
	"github.com/agentgw/agentgw/agent/stage"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/internal/suggest"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/plan"
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
	Budget       prompt.Budget
	// AllowRequestDefinitions lets a request's agentDefinition define an
	// agent the gateway does not know (message templates and context only).
	AllowRequestDefinitions bool
	// Parallel bounds the steps of a plan running at once; 0 means 4.
	Parallel int
	// Kinds are the step kinds that request-carried definitions may name
	// (their steps are dropped); nil means the built-in ones (NewKinds).
	// The kinds of loaded agents are LoadOptions.Kinds.
	Kinds *stepkind.Registry
	// Conversations binds requests to the conversations they continue
	// (conversation/binding); nil refuses the requests that send a contextId.
	Conversations stage.Conversations
	// Remote forwards the requests of remote agents (remote.Agents); nil
	// refuses them.
	Remote stage.RemoteAgents
	// Stages are the request stages of the gateway's parts (package
	// stage), run in order once a request's conversation is bound and its
	// context applied, before its model is picked and its prompt built;
	// nil runs none.
	Stages *stage.Registry
	// ReferencesPrompt renders the knowledge references of a command that
	// declares the knowledgeBase variable and whose prompt templates never
	// mention it, as the system message placed after its system templates
	// (knowledge/kb.PromptText); nil leaves them out of such prompts.
	ReferencesPrompt func([]contextvars.KnowledgeBase) string
	// Store keeps a plan's state for the handlers of the actions it sent,
	// and the runs paused for a consent or a frontend tool's result (a
	// store.Store is one); nil means handlers start with an empty state and
	// no run can pause.
	Store runstate.KV
	// StateTTL is how long that state is kept: as long as actions stay
	// clickable. 0 means 24h.
	StateTTL time.Duration
	// MaxToolRounds bounds a model's tool-calling rounds per answer; 0
	// means DefaultMaxToolRounds.
	MaxToolRounds int
	// PauseTTL is how long a run waiting for a consent or a frontend tool's
	// result is kept; 0 means runstate.DefaultPauseTTL.
	PauseTTL time.Duration
	Logger   *slog.Logger
	// Observers watch the runs that do not come with an observe.Watch in
	// their context (the server begins one per request): hand-offs' and
	// schedules'.
	Observers observe.Observers
	// runs is Store in the language of runs, made by NewRunner.
	runs runstate.Store
}

// Runner executes commands of the registry's agents.
type Runner struct {
	reg     *program.Registry
	cfg     RunnerConfig
	reqDefs *program.DefinitionCache
	// stages are the request stages in the order they run.
	stages []stage.Stage
}

// NewRunner returns a runner over reg.
func NewRunner(reg *program.Registry, cfg RunnerConfig) *Runner {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Signer == nil {
		cfg.Signer = actions.NewSigner(nil, 0)
	}
	if cfg.StateTTL <= 0 {
		cfg.StateTTL = actions.DefaultStateTTL
	}
	cfg.Budget = cfg.Budget.Compiled()
	if cfg.Kinds == nil {
		cfg.Kinds = program.NewKinds()
	}
	cfg.runs = runstate.New(cfg.Store, cfg.PauseTTL, cfg.StateTTL, cfg.Logger)
	return &Runner{reg: reg, cfg: cfg, reqDefs: program.NewDefinitionCache(256, cfg.Kinds), stages: cfg.Stages.Stages()}
}

// Registry returns the runner's registry.
func (r *Runner) Registry() *program.Registry { return r.reg }

var _ dispatch.Local = (*Runner)(nil)

// Dispatch implements dispatch.Local: it prepares req and executes it into
// em; Prepare's error is returned, em untouched.
func (r *Runner) Dispatch(ctx context.Context, req *request.Request, em emit.Emitter) error {
	run, err := r.Prepare(req)
	if err != nil {
		return err
	}
	run.Execute(ctx, em)
	return nil
}

// Run is one prepared request: everything that can fail before the stream
// starts has been checked.
type Run struct {
	// runner is the runner that prepared the run: Execute gives it to
	// what runs inside (dispatch.WithLocal).
	runner *Runner
	cfg    *RunnerConfig
	reg    *program.Registry
	req    *request.Request
	agent  *program.Agent // the agent whose command runs
	cmd    *program.Command
	// endpoint is the agent the plugin called: feedback comes back there.
	endpoint string
	// id names the run: the state its actions' handlers restore. runID
	// makes it on first use: most runs send no action.
	id       string
	idOnce   sync.Once
	model    string
	extra    []llm.Field
	turns    []llm.Message
	feedback *actions.Claims
	// fallbacks are the command's fallback models, nil for the gateway's.
	fallbacks []string
	// parent is the run a sub-run (a call step, a handler) belongs to.
	parent *Run
	// called is set on the sub-run of a call step, whose output the calling
	// plan takes: it cannot pause (see cannotWait). A handler's command
	// answers the request itself and can.
	called bool
	// log is made by logger on first use: most runs never log, and a
	// logger with attributes costs a JSON encoding of them up front.
	log     *slog.Logger
	logOnce sync.Once
	// ctxData is the context variables as templates see them; data adds
	// agent, command and messages. Both are built on first use (dataOnce):
	// a prompt reads its fields through promptData instead.
	ctxData  map[string]any
	data     map[string]any
	dataOnce sync.Once
	// input is the request as plans see it ($input, .input).
	input map[string]any
	// depth counts nested calls.
	depth       int
	actionsSent atomic.Bool
	// paused is the conversation or plan this request resumes, if any.
	paused *runstate.Record
	// planWait is the consent a tool step of the plan waits for.
	planWait planWait
	// handlerState is the state the run that sent the action saved, for
	// the steps of the action's handler (loadHandlerState).
	handlerState map[string]any
	// conv is the stored conversation the run continues, nil without one.
	conv stage.Conversation
	// remote is the endpoint of a remote agent the run forwards to.
	remote string
}

// Agent names the run's agent.
func (run *Run) Agent() string { return run.agent.Name() }

// Command names the run's command.
func (run *Run) Command() string { return run.cmd.Def.Name }

// Remote reports whether the run forwards the request to a remote agent,
// which is sent the request's Body.
func (run *Run) Remote() bool { return run.remote != "" }

// Model is the upstream model the run uses, or "" when the command does
// not call a model itself (its steps may).
func (run *Run) Model() string {
	if !run.cmd.HasPrompt() && run.cmd.Plan == nil {
		return ""
	}
	return run.model
}

// contextData is the context variables by name, as templates see them.
func (run *Run) contextData() map[string]any {
	run.dataOnce.Do(run.buildData)
	return run.ctxData
}

// templateMap is what templates see (templateData), built on first use.
func (run *Run) templateMap() map[string]any {
	run.dataOnce.Do(run.buildData)
	return run.data
}

// buildData builds the template data from the request's context, on first
// use; a sub-run is given its own by sub.
func (run *Run) buildData() {
	if run.ctxData == nil {
		run.ctxData = run.req.Context.TemplateData()
	}
	if run.data == nil {
		run.data = run.templateData(run.ctxData)
	}
}

// promptData is the template data of a run as the fast template evaluator
// reads it, field by field (contextvars.Fields), so that a prompt builds
// only the variables and fields its templates name; Map is templateMap.
// It reads the request's context as it is, so it serves only before the
// context is cut (buildPrompt).
type promptData struct{ run *Run }

// Field implements contextvars.Fields, with templateData's keys first.
func (d promptData) Field(name string) (any, bool) {
	switch name {
	case "agent":
		return d.run.agent.Name(), true
	case "command":
		return d.run.cmd.Def.Name, true
	case "messages":
		return d.run.turnsData(), true
	case "input":
		return d.run.input, true
	case "handoff":
		if h := d.run.req.Handoff; h != nil {
			return h, true
		}
	}
	return d.run.req.Context.TemplateField(name)
}

// Map implements contextvars.Fields.
func (d promptData) Map() map[string]any { return d.run.templateMap() }

// Prepare resolves the agent and command, verifies feedback state, decodes
// and re-applies the context options. Its errors are *Error, for the client
// before any stream starts.
func (r *Runner) Prepare(req *request.Request) (*Run, error) {
	if req.Agent == "" {
		return nil, apierr.Errorf(apierr.CodeBadRequest, "no agent named: put \"agent\" in the body or call POST /agents/{name}").Suggest("GET /agents lists the agents")
	}
	a, err := r.resolveAgent(req)
	if err != nil {
		return nil, err
	}
	run := &Run{runner: r, cfg: &r.cfg, reg: r.reg, req: req, agent: a, endpoint: a.Name(), turns: req.Messages}
	if endpoint, ok := a.RemoteEndpoint(); ok {
		return r.prepareRemote(run, endpoint)
	}
	name := req.Command
	switch {
	case req.Action != nil:
		if name, err = r.verifyFeedback(run); err != nil {
			return nil, err
		}
		if run.feedback.Step == consentKey {
			if err := r.resumeConsent(run); err != nil {
				return nil, err
			}
		}
	case len(req.ToolResults) > 0:
		if name, err = r.resumeToolResults(run); err != nil {
			return nil, err
		}
	}
	if name == "" {
		name = program.DefaultCommand
	}
	cmd, ok := run.agent.Commands[name]
	if !ok {
		if req.Action != nil {
			return nil, stateInvalid(fmt.Sprintf("the action's command %q no longer exists", name), nil)
		}
		return nil, apierr.Errorf(apierr.CodeCommandNotFound, "agent %q has no command %q%s", a.Name(), name, suggest.DidYouMean(name, a.CommandNames())).
			Suggest(fmt.Sprintf("GET /agents/%s lists its commands", a.Name()))
	}
	run.cmd = cmd
	if req.Context == nil {
		req.Context = &contextvars.Set{}
	}
	if err := r.bindConversation(run); err != nil {
		return nil, err
	}
	if err := run.applyContext(); err != nil {
		return nil, err
	}
	if err := r.runStages(run); err != nil {
		return nil, err
	}
	run.model = cmp.Or(cmd.Model.ModelName, req.Model, r.cfg.DefaultModel)
	run.fallbacks = cmd.Model.FallbackModels
	run.extra = withDefaults(req.Extra, cmd.Model.Parameters)
	run.input = run.inputData()
	if err := run.loadHandlerState(); err != nil {
		return nil, err
	}
	// Last: a request refused above leaves the paused run waiting.
	if err := r.claimPause(run); err != nil {
		return nil, err
	}
	return run, nil
}

// runID is the run's id, made on first use.
func (run *Run) runID() string {
	run.idOnce.Do(func() {
		if run.id == "" {
			run.id = uuid.NewString()
		}
	})
	return run.id
}

// debugging reports whether the gateway logs at debug level: callers check
// it before logging, so that a run that logs nothing makes no logger.
func (run *Run) debugging() bool {
	return run.cfg.Logger.Enabled(context.Background(), slog.LevelDebug)
}

// logger is the run's logger, made on first use.
func (run *Run) logger() *slog.Logger {
	run.logOnce.Do(func() {
		if run.parent != nil {
			run.log = run.parent.logger().With("sub_command", run.agent.Name()+"/"+run.cmd.Def.Name)
		} else {
			run.log = run.cfg.Logger.With("request_id", run.req.ID, "agent", run.agent.Name(), "command", run.cmd.Def.Name)
		}
	})
	return run.log
}

// applyContext checks required variables and re-applies resolver options.
func (run *Run) applyContext() error {
	for _, v := range run.cmd.Vars {
		if v.Required && !run.req.Context.Has(v.Name) {
			return apierr.New(apierr.CodeInvalidContext, fmt.Sprintf("command %q needs the context variable %q, and the request has none", run.cmd.Def.Name, v.Name)).
				Suggest(fmt.Sprintf("collect %q as GET /agents/%s describes", v.Name, run.agent.Name()))
		}
		run.req.Context.Apply(v.Name, v.Opts)
	}
	return nil
}

// inputData is the request as plans see it: agent, command, prompt, model
// and, on feedback, the action.
func (run *Run) inputData() map[string]any {
	in := map[string]any{"agent": run.endpoint, "command": run.cmd.Def.Name,
		"prompt": run.req.Context.UserInputPrompt, "model": run.model}
	if fb := run.req.Action; fb != nil {
		act := map[string]any{"action": fb.Action, "accepted": fb.Accepted}
		if fb.Action == actions.KindTree {
			act["treeId"], act["nodeId"], act["nodeAction"] = fb.TreeID, fb.NodeID, fb.NodeAction
			node := map[string]any{}
			for k, v := range fb.Node {
				node[k] = v
			}
			act["node"] = node
		}
		in["action"] = act
	}
	return in
}

// sub prepares a run of another command for a call step or a handler: same
// request and context, the target's own options and model.
func (run *Run) sub(a *program.Agent, cmd *program.Command) *Run {
	s := &Run{runner: run.runner, cfg: run.cfg, reg: run.reg, req: run.req, agent: a, cmd: cmd, endpoint: run.endpoint,
		turns: run.turns, feedback: run.feedback, depth: run.depth + 1, parent: run, conv: run.conv}
	s.model = cmp.Or(cmd.Model.ModelName, run.req.Model, run.cfg.DefaultModel)
	s.fallbacks = cmd.Model.FallbackModels
	s.extra = withDefaults(run.req.Extra, cmd.Model.Parameters)
	s.ctxData = run.contextData()
	s.input = run.input
	s.data = s.templateData(s.ctxData)
	return s
}

func (r *Runner) resolveAgent(req *request.Request) (*program.Agent, error) {
	if a, ok := r.reg.Get(req.Agent); ok {
		return a, nil
	}
	if req.Definition != nil && r.cfg.AllowRequestDefinitions {
		return r.reqDefs.Get(req.Agent, req.Origin, req.Definition)
	}
	e := apierr.Errorf(apierr.CodeAgentNotFound, "no agent named %q%s", req.Agent, suggest.DidYouMean(req.Agent, r.reg.Names())).Suggest("GET /agents lists the agents")
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
	if owner := claims.Data["agent"]; owner != "" {
		// The action came from a command of another agent that a call step
		// ran; its handlers live there.
		if err := run.ownedBy(r, owner); err != nil {
			return "", err
		}
	}
	run.feedback = claims
	return claims.Command, nil
}

func stateInvalid(msg string, cause error) *apierr.Error {
	e := apierr.Errorf(apierr.CodeStateInvalid, "%s", msg).Suggest("echo the state of the action verbatim; run the command again for a fresh action")
	e.Err = cause
	return e
}

// withDefaults adds the command's parameters the request does not set.
func withDefaults(extra []llm.Field, params map[string]any) []llm.Field {
	if len(params) == 0 {
		return extra
	}
	out := slices.Clone(extra)
	for _, k := range sortedKeys(params) {
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
// agent, command, messages and input (the request, with the action on
// feedback).
func (run *Run) templateData(ctxData map[string]any) map[string]any {
	data := make(map[string]any, len(ctxData)+4)
	for k, v := range ctxData {
		data[k] = v
	}
	data["agent"] = run.agent.Name()
	data["command"] = run.cmd.Def.Name
	data["messages"] = run.turnsData()
	data["input"] = run.input
	if run.req.Handoff != nil {
		data["handoff"] = run.req.Handoff
	}
	return data
}

// source is where a run that came without a Watch comes from.
func (run *Run) source() string {
	if run.req.Source != "" {
		return run.req.Source
	}
	if run.req.Handoff != nil {
		return observe.SourceHandoff
	}
	return observe.SourceInternal
}

// turnsData is the conversation's turns as templates see them.
func (run *Run) turnsData() []any {
	turns := make([]any, 0, len(run.turns))
	for _, m := range run.turns {
		turns = append(turns, map[string]any{"role": m.Role, "content": m.Content})
	}
	return turns
}

// Loaded reports whether the run's agent is one the gateway loaded, not
// one the request defined.
func (run *Run) Loaded() bool {
	a, ok := run.reg.Get(run.agent.Name())
	return ok && a == run.agent
}

// Execute runs the command, writing to em, and always ends the stream.
// The run reports to the observe.Watch ctx carries; when it carries none
// and the runner has observers (a hand-off's or a schedule's run), the run
// is watched as a request of its own. What runs inside the run (steps,
// tools) reaches the gateway's agents through the runner, which ctx
// carries for them (dispatch.LocalFrom).
func (run *Run) Execute(ctx context.Context, em emit.Emitter) {
	if run.runner != nil {
		ctx = dispatch.WithLocal(ctx, run.runner)
	}
	if len(run.cfg.Observers) > 0 && observe.From(ctx) == nil {
		var w *observe.Watch
		ctx, w = run.cfg.Observers.Begin(ctx, &observe.Request{Source: run.source(), RequestID: run.req.ID})
		w.Routed(run.Agent(), run.Command(), run.Loaded())
		defer w.End(observe.Outcome{})
	}
	defer em.End()
	if run.conv != nil {
		em = convEmitter{em, run.conv}
	}
	var err error
	switch {
	case run.remote != "":
		err = run.forwardRemote(ctx, em)
	case run.paused != nil:
		err = run.resume(ctx, em)
	case run.feedback != nil:
		err = run.handleFeedback(ctx, em)
	default:
		err = run.execute(ctx, em)
	}
	if errors.Is(err, errPaused) {
		return
	}
	if err == nil && run.conv != nil {
		// Only a whole answer is kept: a failed or cancelled turn is not.
		err = run.conv.Commit(ctx)
	}
	if err != nil {
		var e *apierr.Error
		if !errors.As(err, &e) {
			run.logger().Error("run failed", "err", err)
			e = apierr.Internal(err)
		}
		if e.Code == apierr.CodeCanceled {
			observe.From(ctx).Failed(e.Code)
			return
		}
		observe.From(ctx).Failed(e.Code)
		if e.Err != nil {
			run.logger().Warn("run ended with an error", "code", e.Code, "err", e.Err)
		}
		_ = em.Error(e)
	}
}

// execute runs the command without ending the stream: its reply, its own
// prompt, its plan, then its actions.
func (run *Run) execute(ctx context.Context, em emit.Emitter) error {
	cmd := run.cmd
	if cmd.Reply == nil && !cmd.HasPrompt() && cmd.Plan == nil && len(cmd.Actions) == 0 {
		return apierr.New(apierr.CodeCommandEmpty, fmt.Sprintf("command %q of agent %q has no reply, messageTemplates, steps or actions, so there is nothing to answer", cmd.Def.Name, run.agent.Name())).
			Suggest("the gateway's operator should give the command a reply or messageTemplates")
	}
	if cmd.Reply != nil {
		s, err := tmpl.Execute(ctx, cmd.Reply, run.templateMap())
		if err != nil {
			return tmpl.RenderError(err)
		}
		if err := em.Text(s); err != nil {
			return apierr.Canceled(err)
		}
	}
	if cmd.HasPrompt() {
		if err := run.callModel(ctx, em); err != nil {
			return err
		}
	}
	return run.afterModel(ctx, em)
}

// afterModel runs what a command does after its own prompt: its plan,
// then its actions.
func (run *Run) afterModel(ctx context.Context, em emit.Emitter) error {
	cmd := run.cmd
	var state map[string]any
	if cmd.Plan != nil {
		var init map[string]any
		if run.paused != nil && run.paused.Kind == runstate.KindPlan {
			init = run.paused.State
		}
		rep, err := run.runPlan(ctx, cmd.Plan, em, init)
		if errors.Is(err, errPaused) {
			return run.pausedPlan(ctx, em, rep)
		}
		if err != nil {
			return err
		}
		state = rep.State
	}
	if len(cmd.Actions) > 0 {
		env := run.renderEnv(ctx, state)
		for _, ca := range cmd.Actions {
			if _, err := run.emitAction(em, ca, env); err != nil {
				return err
			}
		}
	}
	return run.saveState(ctx, state)
}

// renderEnv is the environment of the command's own actions: the template
// data, and a scope with the plan's final state.
func (run *Run) renderEnv(ctx context.Context, state map[string]any) *tmpl.Env {
	return &tmpl.Env{Ctx: ctx, Data: run.templateMap(), Scope: &plan.Scope{State: plan.NewState(state), Steps: map[string]map[string]any{},
		Context: run.planContext(), Input: run.input, Handoff: run.req.Handoff}}
}
