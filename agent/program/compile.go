package program

import (
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/prompt"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/internal/suggest"
)

// Names of the context variables a conversation fills (docs/protocol.md
// §6 and §11, "context"): the conversation itself, and its state.
const (
	VarContext = "context"
	VarState   = "state"
)

// DefaultCommand is the command a request without one runs.
const DefaultCommand = "default"

// Agent is a loaded, validated agent with its templates compiled.
type Agent struct {
	Def      *agent.Definition
	Commands map[string]*Command
	// tools are the agent's tools and the shared ones, by name.
	tools map[string]stepkind.Tool
	// parts are the results of the loading's parts (LoadOptions.Parts),
	// in their order.
	parts []partResult
}

// Name returns the agent's name.
func (a *Agent) Name() string { return a.Def.Name }

// Tools lists the agent's tools and the shared ones it may use, by name.
// They are what LoadOptions.Tools compiled and LoadOptions.Shared held
// (with toolload, *tools.Tool).
func (a *Agent) Tools() []stepkind.Tool {
	out := make([]stepkind.Tool, 0, len(a.tools))
	for _, name := range sortedKeys(a.tools) {
		out = append(out, a.tools[name])
	}
	return out
}

// closeOwnTools releases the tools the agent's own definition compiled (not
// the shared ones), for an agent that is dropped for its errors: nothing
// else would close them. A tool that is no io.Closer holds nothing to
// release.
func (a *Agent) closeOwnTools(shared map[string]stepkind.Tool) {
	for name, t := range a.tools {
		if c, ok := t.(io.Closer); ok && shared[name] != t {
			_ = c.Close() // never called, so released at once
		}
	}
}

// CommandNames lists the commands in definition order.
func (a *Agent) CommandNames() []string {
	names := make([]string, 0, len(a.Def.Commands))
	for _, c := range a.Def.Commands {
		if c != nil {
			names = append(names, c.Name)
		}
	}
	return names
}

// Command is a compiled command.
type Command struct {
	// Def is the command's definition.
	Def *agent.Command
	// Model is the command's model settings over the agent's.
	Model agent.ModelConfig
	// System and Others are its prompt's templates: the system ones, and
	// the user and assistant ones in order.
	System []*tmpl.Template
	Others []prompt.Template
	// MentionsInput is set when a template places the user's input.
	MentionsInput bool
	// Reply is the text the command answers with before anything else.
	Reply *tmpl.Template
	// Actions are the command's own actions, sent after its plan.
	Actions []*Action
	// Plan is the command's steps, nil without any.
	Plan *Plan
	// Vars are the context variables the command declares.
	Vars []ContextOption
	// Tools are those the command's model may call, by name.
	Tools map[string]stepkind.Tool
	// DefaultReferences: the command declares knowledgeBase, has a prompt,
	// and no prompt template mentions it; the references go in by default.
	DefaultReferences bool
	// ActionsByKey holds every action the command can emit, its own and
	// those of its plan and handlers, for routing feedback.
	ActionsByKey map[string]*Action
}

// waits reports whether running the command can pause for the user or the
// IDE: its model has a tool that needs consent or runs in the IDE, or its
// plan has a tool step that asks for consent.
func (c *Command) Waits() bool {
	if c.HasPrompt() {
		for _, t := range c.Tools {
			if t.NeedsConsent() || t.ToolSpec().Runtime == "frontend" {
				return true
			}
		}
	}
	if c.Plan != nil {
		for _, s := range c.Plan.Steps {
			if w, ok := s.Kind.(stepkind.Waiter); ok && w.Waits() {
				return true
			}
		}
	}
	return false
}

// hasPrompt reports whether the command asks the model itself.
func (c *Command) HasPrompt() bool { return len(c.System)+len(c.Others) > 0 }

// templates lists the command's prompt templates.
func (c *Command) Templates() []*tmpl.Template {
	ts := slices.Clone(c.System)
	for _, rt := range c.Others {
		ts = append(ts, rt.T)
	}
	return ts
}

// ContextOption is a context variable a command declares: its name, its
// resolver options and whether the request must send it.
type ContextOption struct {
	Name     string
	Opts     contextvars.Options
	Required bool
}

var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// compiler is the state of compiling one definition.
type compiler struct {
	file    string
	baseDir string
	opts    *LoadOptions
	def     *agent.Definition
	diags   *agent.Diagnostics
	// tools are those the agent's commands may name: shared and its own.
	tools map[string]stepkind.Tool
	cmd   *Command // the command being compiled
	// kinds are the step kinds steps may use.
	kinds *stepkind.Registry
	// checks run once every command is compiled (handler targets).
	checks []func(a *Agent)
}

func (c *compiler) errorf(pos agent.Position, format string, args ...any) {
	c.diags.Add(agent.SeverityError, pos, fmt.Sprintf(format, args...))
}

func (c *compiler) warnf(pos agent.Position, format string, args ...any) {
	c.diags.Add(agent.SeverityWarning, pos, fmt.Sprintf(format, args...))
}

func (c *compiler) later(check func(a *Agent)) { c.checks = append(c.checks, check) }

// compile validates def and builds the runnable agent, adding problems to
// diags. It returns nil when the definition is unusable.
func compile(def *agent.Definition, diags *agent.Diagnostics, opts *LoadOptions, baseDir string) *Agent {
	c := &compiler{file: def.Pos.File, baseDir: baseDir, opts: opts, def: def, diags: diags, kinds: opts.kinds()}
	if def.Name == "" {
		c.errorf(def.Pos, "agent: name is required")
	} else if !validName.MatchString(def.Name) {
		c.errorf(def.Pos, "agent: name %q may hold only letters, digits, '_', '.' and '-'", def.Name)
	}
	a := &Agent{Def: def, Commands: map[string]*Command{}}
	c.checkModel("agent", def.Pos, def.ModelConfiguration)
	c.compileTools()
	a.tools = c.tools
	for _, cd := range def.Commands {
		if cd == nil {
			continue
		}
		if cd.Name == "" {
			c.errorf(cd.Pos, "command: name is required")
			continue
		}
		if _, dup := a.Commands[cd.Name]; dup {
			c.errorf(cd.Pos, "command %q is defined twice", cd.Name)
			continue
		}
		a.Commands[cd.Name] = c.compileCommand(cd)
	}
	if _, ok := a.Commands[DefaultCommand]; !ok {
		c.errorf(def.Pos, "agent %q: a %q command is required%s", def.Name, DefaultCommand, commandHint(a))
	}
	c.compileParts(a)
	for _, check := range c.checks {
		check(a)
	}
	return a
}

func commandHint(a *Agent) string {
	if c := suggest.Closest(DefaultCommand, a.CommandNames()); c != "" {
		return fmt.Sprintf(" (is %q meant to be it?)", c)
	}
	return ""
}

func (c *compiler) compileCommand(cd *agent.Command) *Command {
	cc := &Command{Def: cd, Model: mergeModel(c.def.ModelConfiguration, cd.ModelConfiguration), ActionsByKey: map[string]*Action{}}
	c.cmd = cc
	what := fmt.Sprintf("command %q", cd.Name)
	c.checkModel(what, cd.Pos, cd.ModelConfiguration)
	cc.System, cc.Others, cc.MentionsInput = c.compileMessages(what, cd.MessageTemplates)
	if cd.Reply != nil {
		cc.Reply = tmpl.CompileText(what+": reply", cd.Reply, c.diags)
	}
	cc.Tools = c.resolveTools(what, cd.Pos, cd.Tools)
	if len(cc.Tools) > 0 && !cc.HasPrompt() {
		c.warnf(cd.Pos, "%s: tools are for the command's model, and it has no messageTemplates", what)
	}
	for i, v := range cd.Actions {
		if v == nil {
			continue
		}
		key := fmt.Sprintf("actions.%d", i)
		if ca := c.compileAction(fmt.Sprintf("%s: actions[%d]", what, i), key, v); ca != nil {
			cc.Actions = append(cc.Actions, ca)
		}
	}
	if len(cd.Steps) > 0 {
		cc.Plan = c.compilePlan(what, "steps", cd.Steps, cd.Timeout, cd.Pos)
	} else if cd.Timeout > 0 {
		c.warnf(cd.Pos, "%s: timeout bounds a plan, and the command has no steps", what)
	}
	cc.Vars = compileStrategy(what, cd.ContextVariableCollectionStrategy, c.diags)
	cc.DefaultReferences = cc.HasPrompt() && slices.ContainsFunc(cc.Vars, func(v ContextOption) bool { return v.Name == contextvars.NameKnowledgeBase }) &&
		!slices.ContainsFunc(cc.Templates(), func(t *tmpl.Template) bool { return tmpl.Mentions(t, contextvars.NameKnowledgeBase) })
	if cd.Reply == nil && len(cd.MessageTemplates) == 0 && len(cd.Actions) == 0 && len(cd.Steps) == 0 {
		c.warnf(cd.Pos, "%s: has no reply, messageTemplates, steps or actions; requests for it get an error", what)
	}
	return cc
}

// compileMessages compiles message templates: system ones apart, the others
// in order, and whether any mentions the user's input.
func (c *compiler) compileMessages(what string, mts []*agent.MessageTemplate) (system []*tmpl.Template, others []prompt.Template, mentionsInput bool) {
	for i, mt := range mts {
		if mt == nil {
			continue
		}
		where := fmt.Sprintf("%s: messageTemplates[%d]", what, i)
		switch mt.Role {
		case "system", "user", "assistant":
		default:
			c.errorf(mt.Pos, "%s: role %q must be system, user or assistant%s", where, mt.Role, suggest.DidYouMean(mt.Role, []string{"system", "user", "assistant"}))
			continue
		}
		if mt.Template == nil || mt.Template.Src == "" {
			c.errorf(mt.Pos, "%s: template is empty", where)
			continue
		}
		t := tmpl.CompileText(where, mt.Template, c.diags)
		if t == nil {
			continue
		}
		mentionsInput = mentionsInput || tmpl.Mentions(t, contextvars.NameUserInputPrompt)
		if mt.Role == "system" {
			system = append(system, t)
		} else {
			others = append(others, prompt.Template{Role: mt.Role, T: t})
		}
	}
	return system, others, mentionsInput
}

func compileStrategy(what string, s *agent.Strategy, diags *agent.Diagnostics) []ContextOption {
	if s == nil {
		return nil
	}
	if s.Type != "" && s.Type != "specify" {
		diags.Add(agent.SeverityWarning, s.Pos, fmt.Sprintf("%s: contextVariableCollectionStrategy type %q is not known; \"specify\" is", what, s.Type))
	}
	known := contextvars.KnownNames()
	var out []ContextOption
	seen := map[string]bool{}
	for _, v := range s.ContextVariables {
		if v == nil {
			continue
		}
		if v.Name == "" {
			diags.Add(agent.SeverityError, v.Pos, what+": context variable without a name")
			continue
		}
		if seen[v.Name] {
			diags.Add(agent.SeverityError, v.Pos, fmt.Sprintf("%s: context variable %q is listed twice", what, v.Name))
			continue
		}
		seen[v.Name] = true
		// "context" is the conversation the gateway keeps (conversation.go).
		if !slices.Contains(known, v.Name) && v.Name != VarContext {
			diags.Add(agent.SeverityWarning, v.Pos, fmt.Sprintf("%s: unknown context variable %q%s (kept, and usable in templates)", what, v.Name, suggest.DidYouMean(v.Name, known)))
		}
		opts, warns, err := contextvars.ParseOptions(v.Name, v.ResolverOptions)
		for _, w := range warns {
			diags.Add(agent.SeverityWarning, v.Pos, fmt.Sprintf("%s: context variable %q: %s", what, v.Name, w))
		}
		if err != nil {
			diags.Add(agent.SeverityError, v.Pos, fmt.Sprintf("%s: context variable %q: %v", what, v.Name, err))
			continue
		}
		out = append(out, ContextOption{Name: v.Name, Opts: opts, Required: v.Required})
	}
	return out
}

// checkModel reports the problems of a modelConfiguration: a fallback
// model without a name, or named twice.
func (c *compiler) checkModel(what string, pos agent.Position, m *agent.ModelConfig) {
	if m == nil {
		return
	}
	seen := map[string]bool{}
	for i, name := range m.FallbackModels {
		switch {
		case strings.TrimSpace(name) == "":
			c.errorf(pos, "%s: modelConfiguration.fallbackModels[%d] is empty", what, i)
		case seen[name]:
			c.warnf(pos, "%s: modelConfiguration.fallbackModels names %q twice", what, name)
		}
		seen[name] = true
	}
}

// mergeModel overlays the command's model settings on the agent's.
func mergeModel(agentLevel, cmdLevel *agent.ModelConfig) agent.ModelConfig {
	var m agent.ModelConfig
	for _, src := range []*agent.ModelConfig{agentLevel, cmdLevel} {
		if src == nil {
			continue
		}
		if src.ModelName != "" {
			m.ModelName = src.ModelName
		}
		if src.ContextLength > 0 {
			m.ContextLength = src.ContextLength
		}
		if src.FallbackModels != nil {
			m.FallbackModels = src.FallbackModels
		}
		if len(src.Parameters) > 0 {
			p := make(map[string]any, len(m.Parameters)+len(src.Parameters))
			for k, v := range m.Parameters {
				p[k] = v
			}
			for k, v := range src.Parameters {
				p[k] = v
			}
			m.Parameters = p
		}
	}
	return m
}

// Platform is the agent's definition in the IDE platform's shape
// (Definition.Platform).
func (a *Agent) Platform(endpoint string) agent.PlatformDefinition { return a.Def.Platform(endpoint) }

// ExportJSON renders the platform definition as indented JSON.
func (a *Agent) ExportJSON(endpoint string) ([]byte, error) { return a.Def.ExportJSON(endpoint) }

// Summary describes the agent and its commands, as GET /agents lists them.
func (a *Agent) Summary() agent.Summary {
	s := a.Def.Summary()
	for _, p := range a.parts {
		if sum, ok := p.value.(Summarizer); ok {
			sum.Summarize(&s)
		}
	}
	s.Remote, _ = a.RemoteEndpoint()
	return s
}

// RemoteEndpoint is where a remote agent runs: an agent whose definition
// names service.endpoint and whose commands do nothing here (no reply,
// templates, steps or actions) forwards its requests and hand-off messages
// there.
func (a *Agent) RemoteEndpoint() (string, bool) {
	s := a.Def.Service
	if s == nil || s.Endpoint == "" {
		return "", false
	}
	for _, c := range a.Commands {
		if c.Reply != nil || c.HasPrompt() || c.Plan != nil || len(c.Actions) > 0 {
			return "", false
		}
	}
	return s.Endpoint, true
}

// sortedKeys are m's keys, sorted.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
