package program

import (
	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/plan"
)

// NewKinds returns a registry holding the step kinds the runner brings:
// reply, llm, action, set and call. Register others (git, tool) after them.
func NewKinds() *stepkind.Registry {
	r, err := stepkind.NewRegistry(builtinKinds()...)
	if err != nil {
		panic(err) // the built-ins' names are distinct
	}
	return r
}

// builtin is a kind the runner compiles and runs itself.
type builtin struct {
	spec    agent.KindSpec
	compile func(c *stepCompiler, config any) stepkind.Step
}

// Spec implements stepkind.Kind.
func (b *builtin) Spec() agent.KindSpec { return b.spec }

// Compile implements stepkind.Kind.
func (b *builtin) Compile(c stepkind.Compiler, config any) stepkind.Step {
	return b.compile(c.(*stepCompiler), config)
}

func builtinKinds() []stepkind.Kind {
	return []stepkind.Kind{
		&builtin{agent.KindSpec{Name: "reply", Doc: "streams a template as text", Config: &agent.Text{}},
			func(c *stepCompiler, config any) stepkind.Step {
				if t := tmpl.CompileText(c.where+": reply", config.(*agent.Text), c.c.diags); t != nil {
					return &replyKind{t: t}
				}
				return nil
			}},
		&builtin{agent.KindSpec{Name: "llm", Doc: "asks the model with the step's own templates", Config: &agent.LLMStep{}},
			func(c *stepCompiler, config any) stepkind.Step {
				return c.c.compileLLM(c.where, c.sd, config.(*agent.LLMStep))
			}},
		&builtin{agent.KindSpec{Name: "action", Doc: "sends a confirm or tree action; its strings are templates", Config: &agent.Value{}},
			func(c *stepCompiler, config any) stepkind.Step {
				if ca := c.c.compileAction(c.where+": action", c.keyPrefix+"."+c.sd.ID, config.(*agent.Value)); ca != nil {
					return &actionKind{action: ca}
				}
				return nil
			}},
		&builtin{agent.KindSpec{Name: "set", Doc: "writes values into the plan's state", Config: &agent.Value{}},
			func(c *stepCompiler, config any) stepkind.Step { return c.c.compileSet(c.where, config.(*agent.Value)) }},
		&builtin{agent.KindSpec{Name: "call", Doc: "runs another command of this or another agent", Config: &agent.CallStep{}},
			func(c *stepCompiler, config any) stepkind.Step {
				return c.c.compileCall(c.where, c.sd, config.(*agent.CallStep))
			}},
	}
}

// stepCompiler is what a kind compiling one step sees of the compiler.
type stepCompiler struct {
	c         *compiler
	where     string
	keyPrefix string
	sd        *agent.Step
}

var _ stepkind.Compiler = (*stepCompiler)(nil)

// Where implements stepkind.Compiler.
func (sc *stepCompiler) Where() string { return sc.where }

// Step implements stepkind.Compiler.
func (sc *stepCompiler) Step() *agent.Step { return sc.sd }

// Errorf implements stepkind.Compiler.
func (sc *stepCompiler) Errorf(pos agent.Position, format string, args ...any) {
	sc.c.errorf(pos, format, args...)
}

// Warnf implements stepkind.Compiler.
func (sc *stepCompiler) Warnf(pos agent.Position, format string, args ...any) {
	sc.c.warnf(pos, format, args...)
}

// String implements stepkind.Compiler: a reference, a template or a literal.
func (sc *stepCompiler) String(where, s string, pos agent.Position) *tmpl.Value {
	v := &tmpl.Value{Pos: pos, Lit: s}
	switch {
	case plan.IsRef(s):
		ref, err := plan.ParseRef(s)
		if err != nil {
			sc.c.errorf(pos, "%s: %v", where, err)
		}
		v.Ref = ref
	case tmpl.ContainsTemplate(s):
		v.Tmpl = tmpl.CompileText(where, &agent.Text{Src: s, Pos: pos}, sc.c.diags)
	}
	return v
}

// Tools implements stepkind.Compiler.
func (sc *stepCompiler) Tools(where string, pos agent.Position, names []string) map[string]stepkind.Tool {
	return sc.c.resolveTools(where, pos, names)
}

// NoPause implements stepkind.Compiler.
func (sc *stepCompiler) NoPause(where string, pos agent.Position, ts map[string]stepkind.Tool) {
	for _, name := range sortedKeys(ts) {
		sc.c.noPauseTool(where, pos, name, ts[name])
	}
}

// CanPause implements stepkind.Compiler: a command's own plan can pause
// for a consent, a handler's cannot.
func (sc *stepCompiler) CanPause() bool { return sc.keyPrefix == "steps" }
