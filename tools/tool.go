package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentgw/agentgw/agent/toolspec"
)

// Tool is a compiled tool: its schema compiled, its workdir, entry and
// interpreter resolved. It is safe for concurrent calls, and Close
// releases it once they end.
type Tool struct {
	Spec
	// BaseDir is the absolute directory the spec's relative paths start from.
	BaseDir string

	m          *Manager
	rt         Runtime
	schema     *jsonschema.Schema
	schemaJSON json.RawMessage
	params     paramNames // the top-level names the schema declares
	argNames   []string   // native: the declared names, sorted, each a valid flag name
	funcDef    json.RawMessage
	dir        string    // resolved working directory
	workdir    *confined // dir inside its root, opened at each call; nil when Workdir is empty
	entry      string    // resolved entry path (process and wasm runtimes)
	interp     string    // interpreter resolved at load time; "" when missing then
	mounts     []mount   // wasm: resolved read-only mounts
	wasm       *wasmModule

	mu     sync.Mutex
	calls  int  // calls in flight
	closed bool // Close was called: the last call out releases the tool
}

// ToolSpec is the tool as its operator wrote it (stepkind.Tool).
func (t *Tool) ToolSpec() *toolspec.Spec { return &t.Spec }

// NeedsConsent reports whether the user must agree before each call.
func (t *Tool) NeedsConsent() bool { return t.PermissionLevel == toolspec.PermissionUserConsent }

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

// Close releases what the tool holds between calls (a wasm tool's runtime
// and compiled module): at once when no call is in flight, else when the
// last one ends (an error then goes to the manager's logger). A call after
// Close still runs, compiling again, and releases the tool when it ends.
// Closing a closed tool does nothing.
func (t *Tool) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	t.closed = true
	if t.calls > 0 {
		return nil
	}
	return t.release()
}

// begin counts a call in.
func (t *Tool) begin() {
	t.mu.Lock()
	t.calls++
	t.mu.Unlock()
}

// end counts a call out; the last call out of a closed tool releases it.
func (t *Tool) end() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.calls--
	if t.closed && t.calls == 0 {
		if err := t.release(); err != nil {
			t.m.log.Warn("closing tool", "tool", t.Name, "error", err)
		}
	}
}

// release frees what the tool holds; t.mu is held, so no call starts
// meanwhile.
func (t *Tool) release() error {
	t.m.log.LogAttrs(context.Background(), slog.LevelDebug, "tool closed", slog.String("tool", t.Name))
	if t.wasm == nil {
		return nil
	}
	if err := t.wasm.close(); err != nil {
		return fmt.Errorf("tool %s: %w", t.Name, err)
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
