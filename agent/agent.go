package agent

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/contextvars"
)

// DefaultCommand is the command a request without one runs.
const DefaultCommand = "default"

// Agent is a loaded, validated agent with its templates compiled.
type Agent struct {
	Def      *Definition
	commands map[string]*command
}

// Name returns the agent's name.
func (a *Agent) Name() string { return a.Def.Name }

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

// command is a compiled command.
type command struct {
	def           *Command
	model         ModelConfig // command's settings over the agent's
	system        []*tmpl
	others        []roleTemplate
	mentionsInput bool
	reply         *tmpl
	actions       []*valueTemplate
	vars          []contextOption
}

// templates lists the command's prompt templates.
func (c *command) templates() []*tmpl {
	ts := slices.Clone(c.system)
	for _, rt := range c.others {
		ts = append(ts, rt.t)
	}
	return ts
}

type roleTemplate struct {
	role string
	t    *tmpl
}

type contextOption struct {
	name     string
	opts     contextvars.Options
	required bool
}

var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// compile validates def and builds the runnable agent, adding problems to
// diags. It returns nil when the definition is unusable.
func compile(def *Definition, diags *Diagnostics) *Agent {
	if def.Name == "" {
		diags.add(SeverityError, def.Pos, "agent: name is required")
	} else if !validName.MatchString(def.Name) {
		diags.add(SeverityError, def.Pos, fmt.Sprintf("agent: name %q may hold only letters, digits, '_', '.' and '-'", def.Name))
	}
	a := &Agent{Def: def, commands: map[string]*command{}}
	for _, c := range def.Commands {
		if c == nil {
			continue
		}
		if c.Name == "" {
			diags.add(SeverityError, c.Pos, "command: name is required")
			continue
		}
		if _, dup := a.commands[c.Name]; dup {
			diags.add(SeverityError, c.Pos, fmt.Sprintf("command %q is defined twice", c.Name))
			continue
		}
		a.commands[c.Name] = compileCommand(def, c, diags)
	}
	if _, ok := a.commands[DefaultCommand]; !ok {
		diags.add(SeverityError, def.Pos, fmt.Sprintf("agent %q: a %q command is required%s", def.Name, DefaultCommand, commandHint(a)))
	}
	return a
}

func commandHint(a *Agent) string {
	if c := Closest(DefaultCommand, a.CommandNames()); c != "" {
		return fmt.Sprintf(" (is %q meant to be it?)", c)
	}
	return ""
}

func compileCommand(def *Definition, c *Command, diags *Diagnostics) *command {
	cc := &command{def: c, model: mergeModel(def.ModelConfiguration, c.ModelConfiguration)}
	what := fmt.Sprintf("command %q", c.Name)
	for i, mt := range c.MessageTemplates {
		if mt == nil {
			continue
		}
		where := fmt.Sprintf("%s: messageTemplates[%d]", what, i)
		switch mt.Role {
		case "system", "user", "assistant":
		default:
			diags.add(SeverityError, mt.Pos, fmt.Sprintf("%s: role %q must be system, user or assistant%s", where, mt.Role, DidYouMean(mt.Role, []string{"system", "user", "assistant"})))
			continue
		}
		if mt.Template == nil || mt.Template.Src == "" {
			diags.add(SeverityError, mt.Pos, where+": template is empty")
			continue
		}
		t := compileText(where, mt.Template, diags)
		if t == nil {
			continue
		}
		cc.mentionsInput = cc.mentionsInput || mentions(t, contextvars.NameUserInputPrompt)
		if mt.Role == "system" {
			cc.system = append(cc.system, t)
		} else {
			cc.others = append(cc.others, roleTemplate{role: mt.Role, t: t})
		}
	}
	if c.Reply != nil {
		cc.reply = compileText(what+": reply", c.Reply, diags)
	}
	for i, v := range c.Actions {
		if v == nil {
			continue
		}
		if at := compileAction(fmt.Sprintf("%s: actions[%d]", what, i), v, diags); at != nil {
			cc.actions = append(cc.actions, at)
		}
	}
	cc.vars = compileStrategy(what, c.ContextVariableCollectionStrategy, diags)
	if c.Reply == nil && len(c.MessageTemplates) == 0 && len(c.Actions) == 0 {
		diags.add(SeverityWarning, c.Pos, what+": has no reply, messageTemplates or actions; requests for it get an error")
	}
	return cc
}

// compileText parses a template, reporting errors at the line they are on.
func compileText(where string, tx *Text, diags *Diagnostics) *tmpl {
	t, err := parseTemplate(templateName(where), tx.Src)
	if err != nil {
		diags.add(SeverityError, templateErrorPos(tx, err), fmt.Sprintf("%s: bad template: %s", where, templateErrorMessage(err)))
		return nil
	}
	return t
}

var templateNamer = strings.NewReplacer(`command "`, "", `": `, ".", `"`, "", ": ", ".", " ", "_")

// templateName turns `command "x": reply` into `x.reply`, a name without
// colons so that template error positions stay parseable.
func templateName(where string) string { return templateNamer.Replace(where) }

func compileStrategy(what string, s *Strategy, diags *Diagnostics) []contextOption {
	if s == nil {
		return nil
	}
	if s.Type != "" && s.Type != "specify" {
		diags.add(SeverityWarning, s.Pos, fmt.Sprintf("%s: contextVariableCollectionStrategy type %q is not known; \"specify\" is", what, s.Type))
	}
	known := contextvars.KnownNames()
	var out []contextOption
	seen := map[string]bool{}
	for _, v := range s.ContextVariables {
		if v == nil {
			continue
		}
		if v.Name == "" {
			diags.add(SeverityError, v.Pos, what+": context variable without a name")
			continue
		}
		if seen[v.Name] {
			diags.add(SeverityError, v.Pos, fmt.Sprintf("%s: context variable %q is listed twice", what, v.Name))
			continue
		}
		seen[v.Name] = true
		if !slices.Contains(known, v.Name) {
			diags.add(SeverityWarning, v.Pos, fmt.Sprintf("%s: unknown context variable %q%s (kept, and usable in templates)", what, v.Name, DidYouMean(v.Name, known)))
		}
		opts, warns, err := contextvars.ParseOptions(v.Name, v.ResolverOptions)
		for _, w := range warns {
			diags.add(SeverityWarning, v.Pos, fmt.Sprintf("%s: context variable %q: %s", what, v.Name, w))
		}
		if err != nil {
			diags.add(SeverityError, v.Pos, fmt.Sprintf("%s: context variable %q: %v", what, v.Name, err))
			continue
		}
		out = append(out, contextOption{name: v.Name, opts: opts, required: v.Required})
	}
	return out
}

// mergeModel overlays the command's model settings on the agent's.
func mergeModel(agentLevel, cmdLevel *ModelConfig) ModelConfig {
	var m ModelConfig
	for _, src := range []*ModelConfig{agentLevel, cmdLevel} {
		if src == nil {
			continue
		}
		if src.ModelName != "" {
			m.ModelName = src.ModelName
		}
		if src.ContextLength > 0 {
			m.ContextLength = src.ContextLength
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
