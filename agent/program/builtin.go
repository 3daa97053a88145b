package program

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/prompt"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/internal/suggest"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/plan"
)

// replyKind streams a template as text.
type replyKind struct{ t *tmpl.Template }

// Run implements stepkind.Step.
func (k *replyKind) Run(ctx context.Context, r stepkind.Run) (any, error) {
	s, err := tmpl.Execute(ctx, k.t, r.Env().Data)
	if err != nil {
		return nil, tmpl.RenderError(err)
	}
	if err := r.Text(s); err != nil {
		return nil, err
	}
	return s, nil
}

// Reads implements stepkind.Reader.
func (k *replyKind) Reads() ([]*tmpl.Value, []*tmpl.Template) { return nil, []*tmpl.Template{k.t} }

// actionKind sends a confirm or tree action.
type actionKind struct{ action *Action }

// Run implements stepkind.Step.
func (k *actionKind) Run(_ context.Context, r stepkind.Run) (any, error) {
	a, err := r.(Host).SendAction(k.action)
	if err != nil {
		return nil, err
	}
	return stepkind.ToPlain(a)
}

// Reads implements stepkind.Reader.
func (k *actionKind) Reads() ([]*tmpl.Value, []*tmpl.Template) {
	return []*tmpl.Value{k.action.Spec}, nil
}

// llmKind asks the model with the step's own templates.
type llmKind struct {
	system []*tmpl.Template
	others []prompt.Template
	model  agent.ModelConfig
	stream bool
	json   bool
	tools  map[string]stepkind.Tool
}

func (c *compiler) compileLLM(where string, sd *agent.Step, l *agent.LLMStep) stepkind.Step {
	k := &llmKind{stream: l.Stream, model: mergeModel(nil, l.ModelConfiguration)}
	c.checkModel(where+": llm", sd.Pos, l.ModelConfiguration)
	k.system, k.others, _ = c.compileMessages(where+": llm", l.MessageTemplates)
	k.tools = c.resolveTools(where+": llm", sd.Pos, l.Tools)
	c.noPause(where+": llm", sd.Pos, k.tools)
	if len(l.MessageTemplates) == 0 {
		c.errorf(sd.Pos, "%s: an llm step needs messageTemplates", where)
	}
	switch l.Format {
	case "", "text":
	case "json":
		k.json = true
	default:
		c.errorf(sd.Pos, "%s: llm.format %q must be text or json", where, l.Format)
	}
	return k
}

// Run implements stepkind.Step.
func (k *llmKind) Run(ctx context.Context, r stepkind.Run) (any, error) {
	data := r.Env().Data
	var msgs []llm.Message
	for _, t := range k.system {
		if err := appendRendered(ctx, &msgs, "system", t, data); err != nil {
			return nil, err
		}
	}
	for _, rt := range k.others {
		if err := appendRendered(ctx, &msgs, rt.Role, rt.T, data); err != nil {
			return nil, err
		}
	}
	text, err := r.(Host).Ask(ctx, ModelCall{Messages: msgs, Model: k.model, Stream: k.stream, Tools: k.tools})
	if err != nil {
		return nil, err
	}
	if !k.json {
		return text, nil
	}
	return parseJSONAnswer(text)
}

// Reads implements stepkind.Reader.
func (k *llmKind) Reads() ([]*tmpl.Value, []*tmpl.Template) {
	ts := slices.Clone(k.system)
	for _, rt := range k.others {
		ts = append(ts, rt.T)
	}
	return nil, ts
}

func appendRendered(ctx context.Context, msgs *[]llm.Message, role string, t *tmpl.Template, data map[string]any) error {
	s, err := tmpl.Execute(ctx, t, data)
	if err != nil {
		return tmpl.RenderError(err)
	}
	if s != "" {
		*msgs = append(*msgs, llm.Message{Role: role, Content: s})
	}
	return nil
}

// parseJSONAnswer parses a model's JSON answer, tolerating a Markdown code
// fence around it.
func parseJSONAnswer(text string) (any, error) {
	s := strings.TrimSpace(text)
	if strings.HasPrefix(s, "```") {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
		s = strings.TrimSuffix(strings.TrimSpace(s), "```")
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf("the model's answer is not the JSON the step asked for: %w", err)
	}
	return stepkind.WholeNumbers(v), nil
}

// setKind writes values into the plan's state, or, for paths under
// context.state, into the state of the run's conversation (kept with its
// turn when the run ends).
type setKind struct {
	paths  []plan.Path
	values []*tmpl.Value
}

// convStatePrefix starts the set paths that write the conversation's state.
const convStatePrefix = plan.RootContext + "." + VarState + "."

func (c *compiler) compileSet(where string, v *agent.Value) stepkind.Step {
	if v.Kind() != agent.ValueMapping {
		c.errorf(v.Pos, "%s: set: expected a mapping of state paths to values", where)
		return nil
	}
	k := &setKind{}
	for _, e := range v.Entries() {
		name := e.Key
		if !strings.HasPrefix(name, plan.RootState+".") && !strings.HasPrefix(name, convStatePrefix) {
			name = plan.RootState + "." + name
		}
		p, err := plan.ParsePath(name)
		if err != nil {
			c.errorf(e.KeyPos, "%s: set: %v", where, err)
			continue
		}
		k.paths = append(k.paths, p)
		k.values = append(k.values, tmpl.CompileValue(where+": set."+e.Key, e.Value, c.diags))
	}
	return k
}

// Run implements stepkind.Step.
func (k *setKind) Run(_ context.Context, r stepkind.Run) (any, error) {
	out := make(map[string]any, len(k.paths))
	for i, p := range k.paths {
		v, err := k.values[i].Render(r.Env())
		if err != nil {
			return nil, tmpl.RenderError(err)
		}
		if err := r.(Host).SetState(p, v); err != nil {
			return nil, err
		}
		if p[0] == plan.RootContext {
			out[p.String()] = v
			continue
		}
		out[strings.Join(p[1:], ".")] = v
	}
	return out, nil
}

// Reads implements stepkind.Reader.
func (k *setKind) Reads() ([]*tmpl.Value, []*tmpl.Template) { return k.values, nil }

// callKind runs another command and captures or streams its output.
type callKind struct {
	agent, command string
	stream         bool
}

// MaxCallDepth bounds calls within calls.
const MaxCallDepth = 4

func (c *compiler) compileCall(where string, sd *agent.Step, call *agent.CallStep) stepkind.Step {
	k := &callKind{agent: call.Agent, command: cmp.Or(call.Command, DefaultCommand), stream: call.Stream}
	if k.agent == "" || k.agent == c.def.Name {
		k.agent = ""
		name, pos := k.command, sd.Pos
		c.later(func(a *Agent) {
			cmd, ok := a.Commands[name]
			switch {
			case !ok:
				c.errorf(pos, "%s: call: no command %q in this agent%s", where, name, suggest.DidYouMean(name, a.CommandNames()))
			case cmd.Waits():
				c.errorf(pos, "%s: call: command %q waits for the user or the IDE (a tool that needs consent or runs in the IDE), which a called command cannot do", where, name)
			}
		})
	}
	return k
}

// Run implements stepkind.Step.
func (k *callKind) Run(ctx context.Context, r stepkind.Run) (any, error) {
	return r.(Host).Call(ctx, k.agent, k.command, k.stream)
}

// noPause refuses tools that would pause a plan where it cannot pause: a
// model step's tools, a handler's tool steps, and IDE tools in steps; a
// command's own model and its own plan's tool steps can wait.
func (c *compiler) noPause(where string, pos agent.Position, ts map[string]stepkind.Tool) {
	for _, name := range sortedKeys(ts) {
		c.noPauseTool(where, pos, name, ts[name])
	}
}

// noPauseTool refuses tool t, named name, when it would wait for the user
// or the IDE.
func (c *compiler) noPauseTool(where string, pos agent.Position, name string, t stepkind.Tool) {
	if t.NeedsConsent() || t.ToolSpec().Runtime == "frontend" {
		c.errorf(pos, "%s: tool %q waits for the user or the IDE, which this step cannot do; give it to the command's own model (its tools and messageTemplates), or, for a consent, to a tool step of the command's own plan", where, name)
	}
}
