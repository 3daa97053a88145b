package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/internal/golden"
)

// searchSpec is a tool with a realistic schema.
func searchSpec() Spec {
	return Spec{
		Name:        "search_code",
		Description: "Searches the repository for a pattern.",
		Runtime:     "builtin",
		Entry:       "search",
		Parameters: map[string]any{
			"properties": map[string]any{
				"pattern": map[string]any{"type": "string", "minLength": 1, "description": "A regular expression."},
				"limit":   map[string]any{"type": "integer", "minimum": 1, "maximum": 100},
				"paths":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
				"mode":    map[string]any{"enum": []any{"fast", "exact"}},
			},
			"required":             []any{"pattern"},
			"additionalProperties": false,
		},
	}
}

// noop is a builtin that does nothing.
func noop(context.Context, map[string]any) (any, error) { return nil, nil }

// searchTool compiles searchSpec.
func searchTool(t testing.TB) *Tool {
	t.Helper()
	m := NewManager(Config{Builtins: map[string]BuiltinFunc{"search": noop}})
	return mustCompile(t, m, searchSpec(), ".")
}

func TestValidateMessages(t *testing.T) {
	t.Parallel()
	tool := searchTool(t)
	tests := []struct {
		name   string
		params map[string]any
		want   string // "" means valid
	}{
		{"valid", map[string]any{"pattern": "x", "limit": 5.0, "paths": []any{"a"}, "mode": "fast"}, ""},
		{"valid with Go ints", map[string]any{"pattern": "x", "limit": 5}, ""},
		{"nil params", nil, "invalid parameters: missing property 'pattern'"},
		{"wrong type", map[string]any{"pattern": "x", "limit": "5"}, `invalid parameters: parameter "limit": got string, want integer`},
		{"not integer", map[string]any{"pattern": "x", "limit": 1.5}, `invalid parameters: parameter "limit": got number, want integer`},
		{"range", map[string]any{"pattern": "x", "limit": 500.0}, `invalid parameters: parameter "limit": maximum: got 500, want 100`},
		{"nested", map[string]any{"pattern": "x", "paths": []any{"a", true}}, `invalid parameters: parameter "paths.1": got boolean, want string`},
		{"enum", map[string]any{"pattern": "x", "mode": "slow"}, `invalid parameters: parameter "mode": value must be one of 'fast', 'exact'`},
		{"unknown property", map[string]any{"pattern": "x", "extra": 1.0},
			`invalid parameters: parameter "extra": not declared by tool search_code (declared: limit, mode, paths, pattern)`},
		{"two problems", map[string]any{"pattern": "", "limit": 0.0},
			`invalid parameters: parameter "limit": minimum: got 0, want 1; parameter "pattern": minLength: got 0, want 1`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tool.Validate(tc.params)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want && !sameParts(got, tc.want) {
				t.Errorf("Validate:\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestValidateClosedSchemas: a schema admits only the names it declares
// (in properties, or in the subschemas that apply to the same object),
// unless its author opens it explicitly; without a schema, no parameter.
func TestValidateClosedSchemas(t *testing.T) {
	t.Parallel()
	obj := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	props := func(names ...string) map[string]any { return declare(names...)["properties"].(map[string]any) }
	m := NewManager(Config{Builtins: map[string]BuiltinFunc{"b": noop}})
	tests := []struct {
		name   string
		schema map[string]any
		params map[string]any
		want   string // "" means valid
	}{
		{"no schema, no parameter", nil, nil, ""},
		{"no schema refuses any", nil, obj("exec", "x"), `parameter "exec": not declared by tool t (declared: none)`},
		{"declared", obj("properties", props("run")), obj("run", "x"), ""},
		{"undeclared beside declared", obj("properties", props("run")), obj("run", "x", "exec", "y", "toolexec", "z"),
			`parameters "exec", "toolexec": not declared by tool t (declared: run)`},
		{"more than five listed", obj("properties", props()), obj("a", 1, "b", 1, "c", 1, "d", 1, "e", 1, "f", 1, "g", 1),
			`parameters "a", "b", "c", "d", "e" and 2 more: not declared`},
		{"allOf declares", obj("allOf", []any{obj("properties", props("a")), obj("properties", props("b"))}), obj("a", 1, "b", 2), ""},
		{"oneOf and then declare", obj("oneOf", []any{obj("properties", props("a"))}, "if", obj("required", []any{"a"}),
			"then", obj("properties", props("b"))), obj("a", 1, "b", 2), ""},
		{"local $ref declares", obj("$ref", "#/$defs/p", "$defs", obj("p", obj("properties", props("a")))), obj("a", 1), ""},
		{"$ref does not open", obj("$ref", "#/$defs/p", "$defs", obj("p", obj("properties", props("a")))), obj("x", 1), `parameter "x": not declared`},
		{"additionalProperties false stays closed", obj("properties", props("a"), "additionalProperties", false), obj("x", 1), `parameter "x": not declared`},
		{"additionalProperties true opens", obj("properties", props("a"), "additionalProperties", true), obj("x", 1), ""},
		{"additionalProperties schema opens and validates", obj("additionalProperties", obj("type", "string")), obj("x", 1),
			`parameter "x": got number, want string`},
		{"patternProperties opens", obj("patternProperties", obj("^x_", obj())), obj("x_1", 1), ""},
		{"patternProperties still closed elsewhere", obj("patternProperties", obj("^x_", obj()), "additionalProperties", false),
			obj("y", 1), "additional properties 'y' not allowed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tool := mustCompile(t, m, Spec{Name: "t", Description: "d", Runtime: "builtin", Entry: "b", Parameters: tc.schema}, ".")
			err := tool.Validate(tc.params)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Validate: %v, want valid", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Validate: %v, want an error with %q", err, tc.want)
			}
			res := call(tool, tc.params)
			if tc.want != "" {
				wantError(t, res, toolspec.StatusError, toolspec.CodeInvalidParameters, tc.want)
			}
		})
	}
}

// sameParts compares "; "-joined messages ignoring their order (the
// library reports sibling properties in map order).
func sameParts(a, b string) bool {
	pa, pb := strings.Split(a, "; "), strings.Split(b, "; ")
	if len(pa) != len(pb) {
		return false
	}
	for _, x := range pa {
		if !strings.Contains(b, strings.TrimPrefix(x, "invalid parameters: ")) {
			return false
		}
	}
	return true
}

func TestFunctionDefGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		spec Spec
	}{
		{"functiondef_search.json", searchSpec()},
		{"functiondef_noparams.json", Spec{Name: "now", Runtime: "builtin", Entry: "search"}},
	}
	m := NewManager(Config{Builtins: map[string]BuiltinFunc{"search": noop}})
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got := mustCompile(t, m, tc.spec, ".").FunctionDef()
			if !json.Valid(got) {
				t.Fatalf("FunctionDef is not JSON: %s", got)
			}
			golden.Check(t, "testdata/"+tc.file, append(got, '\n'))
		})
	}
}

func TestResultJSONShape(t *testing.T) {
	t.Parallel()
	tests := []struct {
		res  toolspec.Result
		want string
	}{
		{toolspec.Result{CallID: "call_123456", Status: toolspec.StatusSuccess, Result: map[string]any{"value": 14, "unit": "meters"}, ExecutionTime: 123},
			`{"callId":"call_123456","status":"SUCCESS","result":{"unit":"meters","value":14},"executionTime":123}`},
		{toolspec.Result{CallID: "c2", Status: toolspec.StatusError, Error: &toolspec.ResultError{Code: toolspec.CodeToolFailed, Message: "exit status 3: boom"}},
			`{"callId":"c2","status":"ERROR","error":{"code":"TOOL_FAILED","message":"exit status 3: boom"},"executionTime":0}`},
		{toolspec.Result{CallID: "c3", Status: toolspec.StatusTimeout, Error: &toolspec.ResultError{Code: toolspec.CodeTimeout, Message: "tool x timed out after 30s"}, ExecutionTime: 30001},
			`{"callId":"c3","status":"TIMEOUT","error":{"code":"TIMEOUT","message":"tool x timed out after 30s"},"executionTime":30001}`},
		{toolspec.Result{CallID: "c4", Status: toolspec.StatusSuccess, Result: ""},
			`{"callId":"c4","status":"SUCCESS","result":"","executionTime":0}`},
	}
	for _, tc := range tests {
		b, err := json.Marshal(tc.res)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("got  %s\nwant %s", b, tc.want)
		}
	}
}
