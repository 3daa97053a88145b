package tools

import (
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent/toolspec"
)

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	m := NewManager(Config{Builtins: map[string]BuiltinFunc{"git_log": noop}})
	ok := Spec{Name: "ok", Description: "d", Runtime: "frontend"}
	tests := []struct {
		name   string
		edit   func(*Spec)
		substr []string
	}{
		{"bad name", func(s *Spec) { s.Name = "read file" }, []string{`name "read file"`, "1 to 64"}},
		{"long name", func(s *Spec) { s.Name = strings.Repeat("a", 65) }, []string{"1 to 64"}},
		{"no runtime", func(s *Spec) { s.Runtime = "" }, []string{"runtime: missing", "python"}},
		{"runtime typo", func(s *Spec) { s.Runtime = "pyton" }, []string{`runtime "pyton": unknown; did you mean "python"?`}},
		{"runtime unknown", func(s *Spec) { s.Runtime = "cobol" }, []string{`runtime "cobol": unknown; one of builtin, frontend, http`}},
		{"no entry", func(s *Spec) { s.Runtime = "native" }, []string{"entry: missing"}},
		{"bad schema", func(s *Spec) {
			s.Parameters = map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integr"}}}
		},
			[]string{"parameters: invalid JSON Schema", "/properties/n/type"}},
		{"schema not object", func(s *Spec) { s.Parameters = map[string]any{"type": "array"} }, []string{`top-level type must be "object"`}},
		{"schema external ref", func(s *Spec) { s.Parameters = map[string]any{"$ref": "file:///etc/passwd"} }, []string{"parameters: invalid JSON Schema"}},
		{"schema not JSON", func(s *Spec) { s.Parameters = map[string]any{"type": "object", "x": make(chan int)} }, []string{"not a JSON value"}},
		{"permission", func(s *Spec) { s.PermissionLevel = "ALWAYS" }, []string{`permissionLevel "ALWAYS"`, "AUTO or USER_CONSENT"}},
		{"fallback", func(s *Spec) { s.FallbackBehavior = "RETRY" }, []string{`fallbackBehavior "RETRY"`}},
		{"negative timeout", func(s *Spec) { s.Timeout = -time.Second }, []string{"timeout -1s: must not be negative"}},
		{"timeout in ns", func(s *Spec) { s.Timeout = 30 }, []string{"timeout 30ns: too small"}},
		{"negative output cap", func(s *Spec) { s.MaxOutputBytes = -1 }, []string{"maxOutputBytes -1"}},
		{"memory", func(s *Spec) { s.MemoryMiB = 5000 }, []string{"memoryMiB 5000"}},
		{"env name", func(s *Spec) { s.Env = []string{"BAD-NAME"} }, []string{`env "BAD-NAME"`}},
		{"env twice", func(s *Spec) { s.Env = []string{"A", "A=1"} }, []string{"A listed twice"}},
		{"export frontend", func(s *Spec) { s.Export = true }, []string{"cannot be offered to MCP clients"}},
		{"builtin typo", func(s *Spec) { s.Runtime, s.Entry = "builtin", "git_lgo" }, []string{`did you mean "git_log"?`}},
		{"several at once", func(s *Spec) { s.Name, s.PermissionLevel = "a b", "NEVER" }, []string{`name "a b"`, `permissionLevel "NEVER"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := ok
			tc.edit(&spec)
			tool, _, err := m.Compile(spec, t.TempDir())
			if err == nil || tool != nil {
				t.Fatalf("Compile succeeded; want an error with %q", tc.substr)
			}
			for _, s := range tc.substr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
		})
	}
}

func TestCompileDefaults(t *testing.T) {
	t.Parallel()
	tool, warns, err := NewManager(Config{}).Compile(Spec{Name: "t", Runtime: "frontend", FallbackBehavior: "skip"}, ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "no description") {
		t.Errorf("warnings %q", warns)
	}
	if tool.Timeout != DefaultTimeout || tool.MaxOutputBytes != DefaultMaxOutputBytes || tool.MemoryMiB != DefaultMemoryMiB ||
		tool.PermissionLevel != toolspec.PermissionAuto || tool.Command != "t" || tool.FallbackBehavior != toolspec.FallbackSkip || tool.NeedsConsent() {
		t.Errorf("defaults not applied: %+v", tool.Spec)
	}
	if !strings.HasPrefix(tool.BaseDir, "/") {
		t.Errorf("BaseDir %q is not absolute", tool.BaseDir)
	}
	mcp := &fakeRuntime{name: "mcp"}
	m := NewManager(Config{})
	m.Register(mcp)
	tool = mustCompile(t, m, Spec{Name: "remote_search", Runtime: "mcp", Entry: "npx server"}, ".")
	if tool.Remote != "remote_search" || mcp.checked != 1 {
		t.Errorf("mcp: remote %q, checked %d", tool.Remote, mcp.checked)
	}
}

// TestCompileUnattendedWarning: unattended on a tool that can never run
// from a schedule made over the API is a warning.
func TestCompileUnattendedWarning(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec Spec
		warn bool
	}{
		{Spec{Name: "t", Description: "d", Runtime: "frontend", Unattended: true}, true},
		{Spec{Name: "t", Description: "d", Runtime: "builtin", Entry: "x", Unattended: true}, true},
		{Spec{Name: "t", Description: "d", Runtime: "builtin", Entry: "x", Export: true, Unattended: true, PermissionLevel: toolspec.PermissionUserConsent}, true},
		{Spec{Name: "t", Description: "d", Runtime: "builtin", Entry: "x", Export: true, Unattended: true}, false},
	} {
		m := NewManager(Config{Builtins: map[string]BuiltinFunc{"x": noop}})
		_, warns, err := m.Compile(tc.spec, ".")
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Contains(strings.Join(warns, "\n"), "unattended:")
		if got != tc.warn {
			t.Errorf("%+v: warnings %q, want an unattended warning: %v", tc.spec, warns, tc.warn)
		}
	}
}

// TestCompileExportConsentWarning: export on a USER_CONSENT tool is a
// warning: such a tool is never offered to MCP clients.
func TestCompileExportConsentWarning(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec Spec
		warn bool
	}{
		{Spec{Name: "t", Description: "d", Runtime: "builtin", Entry: "x", Export: true, PermissionLevel: toolspec.PermissionUserConsent}, true},
		{Spec{Name: "t", Description: "d", Runtime: "builtin", Entry: "x", Export: true}, false},
		{Spec{Name: "t", Description: "d", Runtime: "builtin", Entry: "x", PermissionLevel: toolspec.PermissionUserConsent}, false},
	} {
		m := NewManager(Config{Builtins: map[string]BuiltinFunc{"x": noop}})
		_, warns, err := m.Compile(tc.spec, ".")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(strings.Join(warns, "\n"), "export: a USER_CONSENT tool"); got != tc.warn {
			t.Errorf("%+v: warnings %q, want the export warning: %v", tc.spec, warns, tc.warn)
		}
	}
}
