package schema

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"reflect"
	"slices"
	"time"

	"github.com/agentgw/agentgw/agent"
)

// Type and field keys of the agent definition, as Docs and Patch name them.
const (
	agentPkg    = "github.com/agentgw/agentgw/agent"
	toolspecPkg = "github.com/agentgw/agentgw/agent/toolspec"
	// KeyToolRuntime is the runtime field of a tool.
	KeyToolRuntime = toolspecPkg + ".Spec.Runtime"
	// KeyToolPermission is the permissionLevel field of a tool.
	KeyToolPermission = toolspecPkg + ".Spec.PermissionLevel"
	// KeyToolFallback is the fallbackBehavior field of a tool.
	KeyToolFallback = toolspecPkg + ".Spec.FallbackBehavior"
	// KeyStepOnError is the onError field of a step.
	KeyStepOnError = agentPkg + ".Step.OnError"
	// KeyHandoffType is the type field of an accepted hand-off.
	KeyHandoffType = agentPkg + ".HandoffDef.Type"
)

// AgentOptions are what an agent definition's schema is made from, beside
// package agent's types.
type AgentOptions struct {
	// Kinds are the step kinds steps may use: the registry the loader uses.
	Kinds agent.KindSpecs
	// Docs are the doc comments of the types (see Docs).
	Docs Docs
	// Patch adds the caller's constraints (enums from the packages that
	// check them, such as the tool runtimes' names) by field key.
	Patch map[string]func(Schema)
	// Examples holds example agent files under ExamplesDir: the smallest is
	// the schema's example, and steps and tools there give their kinds and
	// runtimes examples. Nil: no examples.
	Examples    fs.FS
	ExamplesDir string
}

// nonNegativeDuration is a Go duration as agent's decoder takes it.
const nonNegativeDuration = `^\+?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`

// Duration is the schema of a Go duration string such as 30s or 1h30m;
// signed allows a minus sign.
func Duration(signed bool) Schema {
	p := nonNegativeDuration
	if signed {
		p = `^[-+]?` + p[3:]
	}
	return Schema{"type": "string", "pattern": p, "examples": []any{"30s", "2m", "1h30m"}}
}

// Enum is a Patch that limits a string field to values.
func Enum(values ...string) func(Schema) {
	return func(s Schema) {
		vs := make([]any, len(values))
		for i, v := range values {
			vs[i] = v
		}
		if s["type"] == "array" {
			s["items"] = Schema{"type": "string", "enum": vs}
			return
		}
		s["enum"] = vs
	}
}

// required is a Patch that requires keys of an object.
func required(keys ...any) func(Schema) {
	return func(s Schema) { s["required"] = keys }
}

// agentPatches are the constraints agent's loader checks in code.
func agentPatches() map[string]func(Schema) {
	return map[string]func(Schema){
		agentPkg + ".Definition": required("name", "commands"),
		agentPkg + ".Definition.Name": func(s Schema) {
			s["pattern"] = `^[A-Za-z0-9][A-Za-z0-9_.-]*$`
		},
		agentPkg + ".Definition.Commands": func(s Schema) {
			s["contains"] = Schema{"type": "object", "required": []any{"name"}, "properties": Schema{"name": Schema{"const": "default"}}}
			s["description"] = "The agent's commands; one is named default, the command a request without one runs."
		},
		agentPkg + ".Command":              required("name"),
		agentPkg + ".Step":                 required("id"),
		agentPkg + ".MessageTemplate":      required("role", "template"),
		agentPkg + ".MessageTemplate.Role": Enum("system", "user", "assistant"),
		agentPkg + ".ContextVariableSpec":  required("name"),
		agentPkg + ".HandoffDef":           required("type"),
		agentPkg + ".LLMStep.Format":       Enum("text", "json"),
		agentPkg + ".RetrySpec.Limit":      func(s Schema) { s["minimum"] = 0 },
		agentPkg + ".ToolDef":              required("name", "runtime"),
		toolspecPkg + ".Spec.Name":         func(s Schema) { s["pattern"] = `^[A-Za-z0-9_-]{1,64}$` },
	}
}

// Agent is the JSON Schema of an agent definition file.
func Agent(o AgentOptions) (Generated, error) {
	patch := agentPatches()
	maps.Copy(patch, o.Patch)
	r := &Reflector{
		Docs:  o.Docs,
		Kinds: o.Kinds,
		Patch: patch,
		Types: map[reflect.Type]Schema{
			reflect.TypeFor[time.Duration](): Duration(false),
			reflect.TypeFor[agent.Text](): {"type": "string",
				"description": "A Go text/template: the request's context variables are its data."},
			reflect.TypeFor[agent.Value](): {"type": "object"},
		},
	}
	root := r.Reflect(reflect.TypeFor[agent.Definition]())
	if o.Examples != nil {
		if err := addExamples(r, o.Kinds, o.Examples, o.ExamplesDir); err != nil {
			return Generated{}, err
		}
	}
	return Document(r, root, "agentgw agent definition",
		"An agent as an admin writes it (YAML or JSON): a superset of the IDE platform's agent definition."), nil
}

// Generated is a schema with what making it read.
type Generated struct {
	Schema Schema
	// Docs are the entries of the reflector's Docs the schema uses, and
	// Packages the import paths of its named types (where ExtractDocs
	// finds their comments).
	Docs     Docs
	Packages []string
}

// Document is the root schema root with the definitions r made, titled.
func Document(r *Reflector, root Schema, title, desc string) Generated {
	doc := Schema{"$schema": Draft, "title": title, "description": desc, "$defs": r.Defs()}
	maps.Copy(doc, root)
	return Generated{Schema: doc, Docs: r.UsedDocs(), Packages: r.Packages()}
}

// addExamples gives the definition, its step kinds and its tools examples
// read from the example agents in dir.
func addExamples(r *Reflector, kinds agent.KindSpecs, fsys fs.FS, dir string) error {
	files, err := agent.DefinitionFiles(fsys, dir, "")
	if err != nil {
		return err
	}
	var smallest any
	size := -1
	kindEx := map[string]any{}
	runtimeEx := map[string]any{}
	for _, file := range files {
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			return fmt.Errorf("reading example %s: %w", file, err)
		}
		docs, err := decodeYAMLDocs(data)
		if err != nil {
			return fmt.Errorf("example %s: %w", path.Base(file), err)
		}
		for _, doc := range docs {
			if size < 0 || len(data) < size {
				smallest, size = doc, len(data)
			}
			collectExamples(doc, kinds, kindEx, runtimeEx)
		}
	}
	defs := r.Defs()
	if smallest != nil {
		if d, ok := defs[DefName(reflect.TypeFor[agent.Definition]())].(Schema); ok {
			d["examples"] = []any{smallest}
		}
	}
	step, _ := defs[DefName(reflect.TypeFor[agent.Step]())].(Schema)
	if props, ok := step["properties"].(Schema); ok {
		for name, ex := range kindEx {
			if p, ok := props[name].(Schema); ok {
				p["examples"] = []any{ex}
			}
		}
	}
	if tool, ok := defs[DefName(reflect.TypeFor[agent.ToolDef]())].(Schema); ok && len(runtimeEx) > 0 {
		var exs []any
		for _, rt := range slices.Sorted(maps.Keys(runtimeEx)) {
			exs = append(exs, runtimeEx[rt])
		}
		tool["examples"] = exs
	}
	return nil
}

// collectExamples notes the first configuration of each step kind in a
// definition's commands, and its first tool of each runtime.
func collectExamples(doc any, kinds agent.KindSpecs, kindEx, runtimeEx map[string]any) {
	def, _ := doc.(map[string]any)
	tools, _ := def["tools"].([]any)
	for _, t := range tools {
		tm, _ := t.(map[string]any)
		if rt, ok := tm["runtime"].(string); ok && runtimeEx[rt] == nil {
			runtimeEx[rt] = tm
		}
	}
	cmds, _ := def["commands"].([]any)
	for _, c := range cmds {
		cm, _ := c.(map[string]any)
		steps, _ := cm["steps"].([]any)
		for _, s := range steps {
			sm, _ := s.(map[string]any)
			for _, name := range kinds.KindNames() {
				if v, ok := sm[name]; ok && v != nil && kindEx[name] == nil {
					kindEx[name] = v
				}
			}
		}
	}
}
