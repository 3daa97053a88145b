package schema

import (
	"maps"
	"reflect"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agenttest"
)

// agenttestPkg is package agenttest's import path, as Docs and Patch key
// its types.
const agenttestPkg = "github.com/agentgw/agentgw/agenttest"

// AgentTestOptions are what an agent test file's schema is made from,
// beside package agenttest's types.
type AgentTestOptions struct {
	// Docs are the doc comments of the types (see Docs).
	Docs Docs
	// Patch adds the caller's constraints by field key, after the ones
	// agenttest.Parse checks in code.
	Patch map[string]func(Schema)
}

// scalar is the schema of a YAML scalar the test decoder reads as its
// text (agent.Text): a string, or a number or boolean written bare.
func scalar() Schema {
	return Schema{"type": []any{"string", "number", "boolean"},
		"description": "A string; a number or boolean written bare is read as its text."}
}

// agentTestPatches are the constraints agenttest checks in code, and the
// shapes of its free-form values (agent.Value) that have one.
func agentTestPatches(stub Schema) map[string]func(Schema) {
	object := func(s Schema) { s["type"] = "object" }
	stubs := func(s Schema) {
		s["type"] = "object"
		s["additionalProperties"] = stub
	}
	return map[string]func(Schema){
		agenttestPkg + ".File": required("tests"),
		agenttestPkg + ".File.Tests": func(s Schema) {
			s["minItems"] = 1
		},
		agenttestPkg + ".Test":             required("name"),
		agenttestPkg + ".Test.Name":        func(s Schema) { s["minLength"] = 1 },
		agenttestPkg + ".Test.Tools":       stubs,
		agenttestPkg + ".Test.Steps":       stubs,
		agenttestPkg + ".Request.Handoff":  object,
		agenttestPkg + ".Click.Action":     Enum(actions.KindConfirm, actions.KindTree),
		agenttestPkg + ".Click.NodeAction": Enum(actions.NodeClick, actions.NodeExpand),
		agenttestPkg + ".Call.Arguments":   func(s Schema) { s["type"] = []any{"object", "string"} },
		agenttestPkg + ".StepExpect.With":  object,
	}
}

// AgentTest is the JSON Schema of an agent test file (*_test.yaml), made
// from package agenttest's types as agenttest.Parse decodes them.
func AgentTest(o AgentTestOptions) (Generated, error) {
	r := &Reflector{
		Docs: o.Docs,
		Types: map[reflect.Type]Schema{
			reflect.TypeFor[agent.Text]():  scalar(),
			reflect.TypeFor[agent.Value](): {},
		},
	}
	// Stubs are a mapping of names to Stub, which agenttest decodes from a
	// Value after the file.
	stub := r.Reflect(reflect.TypeFor[agenttest.Stub]())
	r.Patch = agentTestPatches(stub)
	maps.Copy(r.Patch, o.Patch)
	root := r.Reflect(reflect.TypeFor[agenttest.File]())
	return Document(r, root, "agentgw agent test file",
		"Tests of agents (*_test.yaml next to them), run offline by agentgw test: requests, recorded model answers, stubs and expectations."), nil
}
