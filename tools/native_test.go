package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent/toolspec"
)

// nativeSpec is a native tool running the test binary with command cmd.
func nativeSpec(t testing.TB, cmd string) Spec {
	return Spec{Name: "nt_" + cmd, Description: "test tool", Runtime: "native", Entry: nativeTool(t), Command: cmd}
}

// decodeText decodes a text result that holds JSON: native tools return
// their stdout as text.
func decodeText(t testing.TB, res toolspec.Result) any {
	t.Helper()
	s, ok := res.Result.(string)
	if !ok {
		t.Fatalf("result %#v is not text", res.Result)
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("result %q: %v", s, err)
	}
	return v
}

func TestNativeResults(t *testing.T) {
	t.Parallel()
	m := NewManager(Config{})
	dir := t.TempDir()
	tests := []struct {
		name   string
		cmd    string
		params map[string]any
		want   any
	}{
		{"json argv sorted", "echo", map[string]any{"b": "two words", "a": 1.5, "c": true},
			map[string]any{"argv": []any{"echo", "--a=1.5", "--b=two words", "--c=true"}}},
		{"array repeats flag", "echo", map[string]any{"tag": []any{"x", 2.0, map[string]any{"k": "v"}}},
			map[string]any{"argv": []any{"echo", "--tag=x", "--tag=2", `--tag={"k":"v"}`}}},
		{"shell metacharacters stay literal", "echo", map[string]any{"q": "$(rm -rf /); `id` | cat > x"},
			map[string]any{"argv": []any{"echo", "--q=$(rm -rf /); `id` | cat > x"}}},
		{"a value starting with - stays the declared flag's value", "echo", map[string]any{"q": "-exec=sh -c id", "tag": []any{"--toolexec=x"}},
			map[string]any{"argv": []any{"echo", "--q=-exec=sh -c id", "--tag=--toolexec=x"}}},
		{"only the declared names present", "echo", map[string]any{"c": false},
			map[string]any{"argv": []any{"echo", "--c=false"}}},
		{"text trimmed", "text", nil, "hello from native"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := nativeSpec(t, tc.cmd)
			spec.Parameters = declare("a", "b", "c", "q", "tag")
			tool := mustCompile(t, m, spec, dir)
			res := call(tool, tc.params)
			wantSuccess(t, res)
			got := res.Result
			if strings.HasPrefix(got.(string), "{") {
				got = decodeText(t, res)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("result %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestNativeFailureCarriesStderr(t *testing.T) {
	t.Parallel()
	tool := mustCompile(t, NewManager(Config{}), nativeSpec(t, "fail"), t.TempDir())
	res := call(tool, nil)
	wantError(t, res, toolspec.StatusError, toolspec.CodeToolFailed, "exit status 3", "something broke")
}

func TestNativeOutputCap(t *testing.T) {
	t.Parallel()
	spec := nativeSpec(t, "big")
	spec.Parameters = declare("n")
	spec.MaxOutputBytes = 100
	tool := mustCompile(t, NewManager(Config{}), spec, t.TempDir())
	res := call(tool, map[string]any{"n": 5000.0})
	wantSuccess(t, res)
	want := strings.Repeat("x", 100) + "\n[output cut at 100 bytes]"
	if res.Result != want {
		t.Errorf("result %q, want %q", res.Result, want)
	}
	res = call(tool, map[string]any{"n": 100.0})
	if res.Result != strings.Repeat("x", 100) {
		t.Errorf("exactly the cap: result %q", res.Result)
	}
}

func TestNativeEnvAllowList(t *testing.T) {
	t.Setenv("TOOLS_TEST_ALLOWED", "yes")
	t.Setenv("TOOLS_TEST_SECRET", "leak")
	spec := nativeSpec(t, "env")
	spec.Env = []string{"TOOLS_TEST_ALLOWED", "FIXED=1=2", "TOOLS_TEST_UNSET"}
	tool := mustCompile(t, NewManager(Config{}), spec, t.TempDir())
	res := call(tool, nil)
	wantSuccess(t, res)
	want := []any{"FIXED=1=2", "TOOLS_TEST_ALLOWED=yes"}
	if got := decodeText(t, res); !reflect.DeepEqual(got, want) {
		t.Errorf("environment %v, want exactly %v", got, want)
	}
}

func TestNativeGetenvHook(t *testing.T) {
	t.Parallel()
	spec := nativeSpec(t, "env")
	spec.Env = []string{"HOME"}
	m := NewManager(Config{Getenv: func(k string) string { return "/home/" + k }})
	res := call(mustCompile(t, m, spec, t.TempDir()), nil)
	if got, want := decodeText(t, res), []any{"HOME=/home/HOME"}; !reflect.DeepEqual(got, want) {
		t.Errorf("environment %v, want %v", got, want)
	}
}

func TestNativeWorkdir(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	if err := os.Mkdir(filepath.Join(base, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	spec := nativeSpec(t, "pwd")
	spec.Workdir = "work"
	tool := mustCompile(t, NewManager(Config{}), spec, base)
	res := call(tool, nil)
	wantSuccess(t, res)
	want, _ := filepath.EvalSymlinks(filepath.Join(base, "work"))
	if res.Result != want || tool.dir != want {
		t.Errorf("ran in %v (dir %s), want %s", res.Result, tool.dir, want)
	}
}

func TestInvalidParametersRunNothing(t *testing.T) {
	t.Parallel()
	side := filepath.Join(t.TempDir(), "ran")
	spec := nativeSpec(t, "touch")
	spec.Parameters = map[string]any{
		"type":       "object",
		"properties": map[string]any{"path": map[string]any{"type": "string"}, "count": map[string]any{"type": "integer"}},
		"required":   []any{"path"},
	}
	tool := mustCompile(t, NewManager(Config{}), spec, t.TempDir())
	res := call(tool, map[string]any{"path": side, "count": "three"})
	wantError(t, res, toolspec.StatusError, toolspec.CodeInvalidParameters, `"count"`, "want integer")
	if _, err := os.Stat(side); !os.IsNotExist(err) {
		t.Fatalf("the tool ran despite invalid parameters (stat: %v)", err)
	}
	wantSuccess(t, call(tool, map[string]any{"path": side, "count": 3.0}))
	if _, err := os.Stat(side); err != nil {
		t.Fatalf("valid call did not run the tool: %v", err)
	}
}

func TestNativeBadParameterNames(t *testing.T) {
	t.Parallel()
	m := NewManager(Config{})
	for _, key := range []string{"--x", "a=b", "-", "a b", "-exec"} {
		spec := nativeSpec(t, "echo")
		spec.Parameters = declare(key)
		if _, _, err := m.Compile(spec, t.TempDir()); err == nil || !strings.Contains(err.Error(), "cannot be a command-line flag") {
			t.Errorf("declared %q: Compile error %v, want a flag-name error", key, err)
		}
	}
	spec := nativeSpec(t, "echo")
	spec.Parameters = declare("k")
	tool := mustCompile(t, m, spec, t.TempDir())
	for _, key := range []string{"--x", "a=b", "", "-", "a b", "exec"} {
		res := call(tool, map[string]any{key: "v"})
		wantError(t, res, toolspec.StatusError, toolspec.CodeInvalidParameters, "not declared")
	}
	res := call(tool, map[string]any{"k": "a\x00b"})
	wantError(t, res, toolspec.StatusError, toolspec.CodeInvalidParameters, "NUL")
}

// TestNativeOpenSchemaRefused: a native tool's schema may not admit
// undeclared names, even when its author asks, since they would become
// flags.
func TestNativeOpenSchemaRefused(t *testing.T) {
	t.Parallel()
	m := NewManager(Config{})
	for _, open := range []map[string]any{
		{"additionalProperties": true},
		{"additionalProperties": map[string]any{"type": "string"}},
		{"patternProperties": map[string]any{"^x": map[string]any{}}},
		{"unevaluatedProperties": true},
		{"allOf": []any{map[string]any{"additionalProperties": true}}},
	} {
		spec := nativeSpec(t, "echo")
		spec.Parameters = map[string]any{"type": "object", "properties": map[string]any{"k": map[string]any{}}}
		for k, v := range open {
			spec.Parameters[k] = v
		}
		if _, _, err := m.Compile(spec, t.TempDir()); err == nil || !strings.Contains(err.Error(), "takes only the parameters it declares") {
			t.Errorf("schema %v: Compile error %v, want a refusal", spec.Parameters, err)
		}
	}
}

// TestNativeExecFlagNeverReachesTool is issue 24's attack: an undeclared
// parameter named like a flag of the program (go test -exec) must not
// reach it. The stand-in program writes the file -exec names: it is never
// written, whatever the value or the schema's shape.
func TestNativeExecFlagNeverReachesTool(t *testing.T) {
	t.Parallel()
	m := NewManager(Config{})
	spec := nativeSpec(t, "touch")
	spec.Parameters = map[string]any{"type": "object", "properties": map[string]any{"run": map[string]any{"type": "string"}}}
	tool := mustCompile(t, m, spec, t.TempDir())
	for _, params := range []func(side string) map[string]any{
		func(side string) map[string]any { return map[string]any{"path": side} },
		func(side string) map[string]any {
			return map[string]any{"exec": "sh -c 'id > " + side + "'", "path": side}
		},
		func(side string) map[string]any { return map[string]any{"run": "x", "path": side} },
		func(side string) map[string]any { return map[string]any{"run": "--path=" + side} },
		func(side string) map[string]any { return map[string]any{"run": "-path=" + side} },
	} {
		side := filepath.Join(t.TempDir(), "pwned")
		p := params(side)
		res := call(tool, p)
		if _, err := os.Stat(side); !os.IsNotExist(err) {
			t.Fatalf("params %v: the file was written (stat: %v); result %+v", p, err, res)
		}
		if _, undeclared := p["path"]; undeclared {
			wantError(t, res, toolspec.StatusError, toolspec.CodeInvalidParameters, `"path"`, "not declared")
		}
	}
}

func TestNativeMissingEntry(t *testing.T) {
	t.Parallel()
	spec := Spec{Name: "gone", Runtime: "native", Entry: "./bin/gone", Description: "d"}
	tool, warns, err := NewManager(Config{}).Compile(spec, t.TempDir())
	if err != nil || len(warns) != 1 || !strings.Contains(warns[0], "no such file") {
		t.Fatalf("Compile: warnings %v, err %v; want one missing-entry warning", warns, err)
	}
	wantError(t, call(tool, nil), toolspec.StatusError, toolspec.CodeUnavailable, "no such file")
}

func TestStdoutTail(t *testing.T) {
	if got := stdoutTail([]byte("  a\nb  "), 10); got != "a\nb" {
		t.Errorf("short: %q", got)
	}
	if got := stdoutTail([]byte("line one\nline two\nline three\n"), 12); got != "[...]\nline three" {
		t.Errorf("long: %q", got)
	}
}
