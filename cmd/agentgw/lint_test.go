package main

import (
	"path/filepath"
	"strings"
	"testing"
)

const brokenAgent = `name: broken
version: 1.0.0
commands:
  - name: other
    reply: hi
    colour: red
`

// misspelledAgent is the platform's sample with its misspelled variable.
const misspelledAgent = `{"name": "happy2", "version": "1.0.0", "type": "proxy", "description": "x",
 "commands": [{"name": "default", "description": "d",
               "messageTemplates": [{"role": "system", "template": "You are a world-class programmer"}],
               "contextVariableCollectionStrategy": {"type": "specify",
                  "contextVariables": [{"name": "userInfo", "resolveOptions": {}}, {"name": "activeEdtior"}]}}]}
`

func TestLint(t *testing.T) {
	bad := t.TempDir()
	writeFile(t, bad, "broken.yaml", brokenAgent)
	writeFile(t, bad, "good.yaml", "name: fine\ncommands:\n  - name: default\n    reply: ok\n")
	typo := t.TempDir()
	writeFile(t, typo, "happy2.json", misspelledAgent)
	writeFile(t, typo, ".hidden/broken.yaml", brokenAgent) // hidden: skipped
	tests := []struct {
		name       string
		env        map[string]string
		args       []string
		wantCode   int
		wantStdout string // exact
		wantStderr string // exact
	}{
		{
			name: "embedded examples", wantCode: 0,
			wantStderr: "7 agents loaded, 0 errors, 0 warnings\n",
		},
		{
			name: "configs/agents", args: []string{filepath.Join("..", "..", "configs", "agents")}, wantCode: 0,
			wantStderr: "7 agents loaded, 0 errors, 0 warnings\n",
		},
		{
			name: "the configured agents", env: map[string]string{"AGENTGW_AGENTS": typo}, wantCode: 0,
			wantStdout: filepath.Join(typo, "happy2.json") + `:5:84: warning: command "default": unknown context variable "activeEdtior"; did you mean "activeEditor"? (kept, and usable in templates)` + "\n",
			wantStderr: "1 agents loaded, 0 errors, 1 warnings\n",
		},
		{
			name: "errors", args: []string{bad}, wantCode: 1,
			wantStdout: filepath.Join(bad, "broken.yaml") + `:1:1: agent "broken": a "default" command is required` + "\n" +
				filepath.Join(bad, "broken.yaml") + `:6:5: agent.commands[0]: unknown field "colour"` + "\n",
			wantStderr: "1 agents loaded, 2 errors, 0 warnings\n",
		},
		{
			name: "warnings are not errors", args: []string{typo}, wantCode: 0,
			wantStdout: filepath.Join(typo, "happy2.json") + `:5:84: warning: command "default": unknown context variable "activeEdtior"; did you mean "activeEditor"? (kept, and usable in templates)` + "\n",
			wantStderr: "1 agents loaded, 0 errors, 1 warnings\n",
		},
		{
			name: "a missing directory", args: []string{filepath.Join(bad, "nope")}, wantCode: 1,
			wantStderr: "0 agents loaded, 1 errors, 0 warnings\n",
		},
		{
			name: "bad flag", args: []string{"--bogus"}, wantCode: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.env, append([]string{"lint"}, tt.args...)...)
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, stdout, stderr)
			}
			if tt.wantCode == 2 {
				return
			}
			if tt.wantStdout != "" || code == 0 {
				if stdout != tt.wantStdout {
					t.Errorf("stdout:\n%s\nwant:\n%s", stdout, tt.wantStdout)
				}
			}
			if stderr != tt.wantStderr {
				t.Errorf("stderr = %q, want %q", stderr, tt.wantStderr)
			}
		})
	}
}

// TestLintPositions checks that every line lint prints is file:line:col: message.
func TestLintPositions(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.yaml", brokenAgent)
	writeFile(t, dir, "b.yaml", "name: [unclosed\n")
	writeFile(t, dir, "c.json", misspelledAgent)
	code, stdout, _ := runCLI(t, nil, "lint", dir)
	if code != 1 {
		t.Errorf("exit code = %d, want 1", code)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("want 4 diagnostics, got:\n%s", stdout)
	}
	for _, l := range lines {
		file, rest, ok := strings.Cut(l, ":")
		parts := strings.SplitN(rest, ":", 3)
		if !ok || !strings.HasPrefix(file, dir) || len(parts) != 3 || !isNumber(parts[0]) || !isNumber(parts[1]) || !strings.HasPrefix(parts[2], " ") {
			t.Errorf("%q is not file:line:col: message", l)
		}
		if parts[0] == "0" {
			t.Errorf("%q: line 0", l)
		}
	}
	if !strings.Contains(stdout, "b.yaml:") || !strings.Contains(stdout, "syntax error") {
		t.Errorf("no syntax error for b.yaml in:\n%s", stdout)
	}
}

// TestLintFile lints single files, as the usage line promises.
func TestLintFile(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.yaml", "name: fine\ncommands:\n  - name: default\n    reply: ok\n")
	broken := writeFile(t, dir, "broken.yaml", brokenAgent)
	code, stdout, stderr := runCLI(t, nil, "lint", good)
	if code != 0 || stdout != "" || stderr != "1 agents loaded, 0 errors, 0 warnings\n" {
		t.Errorf("lint %s: exit %d\nstdout:\n%s\nstderr:\n%s", good, code, stdout, stderr)
	}
	code, stdout, _ = runCLI(t, nil, "lint", broken)
	if code != 1 || !strings.HasPrefix(stdout, broken+":1:1: ") {
		t.Errorf("lint %s: exit %d\nstdout:\n%s", broken, code, stdout)
	}
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
