package tools

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Tool is a compiled tool: its schema compiled, its workdir, entry and
// interpreter resolved. It is safe for concurrent calls.
type Tool struct {
	Spec
	// BaseDir is the absolute directory the spec's relative paths start from.
	BaseDir string

	m          *Manager
	rt         Runtime
	schema     *jsonschema.Schema
	schemaJSON json.RawMessage
	funcDef    json.RawMessage
	dir        string  // resolved working directory
	entry      string  // resolved entry path (process and wasm runtimes)
	interp     string  // interpreter resolved at load time; "" when missing then
	mounts     []mount // wasm: resolved read-only mounts
	wasm       *wasmModule
}

// NeedsConsent reports whether the user must agree before each call.
func (t *Tool) NeedsConsent() bool { return t.PermissionLevel == PermissionUserConsent }

// FunctionDef returns the tool as model APIs take it:
// {"type":"function","function":{"name","description","parameters"}}.
func (t *Tool) FunctionDef() json.RawMessage { return slices.Clone(t.funcDef) }

// ParametersSchema returns the normalized JSON Schema of the parameters.
func (t *Tool) ParametersSchema() json.RawMessage { return slices.Clone(t.schemaJSON) }

// Environ returns the environment a tool process gets, in "NAME=value" form:
// only the allow-list, NAME entries read from the gateway's environment now
// (left out when empty).
func (t *Tool) Environ() []string {
	out := make([]string, 0, len(t.Env))
	for _, e := range t.Env {
		if strings.Contains(e, "=") {
			out = append(out, e)
			continue
		}
		if v := t.m.cfg.Getenv(e); v != "" {
			out = append(out, e+"="+v)
		}
	}
	return out
}

// Close releases what the tool holds between calls (a wasm tool's compiled
// module). Calls after Close compile again.
func (t *Tool) Close() error {
	if t.wasm != nil {
		return t.wasm.close()
	}
	return nil
}

// buildFunctionDef marshals the model-facing definition.
func (t *Tool) buildFunctionDef() error {
	def := struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description,omitempty"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}{Type: "function"}
	def.Function.Name = t.Name
	def.Function.Description = t.Description
	def.Function.Parameters = t.schemaJSON
	b, err := json.Marshal(def)
	if err != nil {
		return err
	}
	t.funcDef = b
	return nil
}
