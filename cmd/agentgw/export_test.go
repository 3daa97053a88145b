package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/golden"
)

func TestExportGolden(t *testing.T) {
	tests := []struct {
		golden string
		env    map[string]string
		args   []string
	}{
		// No flags: http://localhost plus the default address.
		{golden: "export/hello.json", args: []string{"hello"}},
		{golden: "export/happy.json", args: []string{"--endpoint", "https://gw.example.com", "happy"}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.env, append([]string{"export"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			golden.Check(t, "testdata/"+tt.golden, []byte(stdout))
		})
	}
}

func TestExportEndpoint(t *testing.T) {
	dir := t.TempDir()
	conf := writeFile(t, dir, "gw.yaml", "publicURL: https://file.example\n")
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{name: "default address", want: "http://localhost:18080"},
		{name: "--addr with a port only", args: []string{"--addr", ":9090"}, want: "http://localhost:9090"},
		{name: "--addr with a host", args: []string{"--addr", "10.0.0.7:80"}, want: "http://10.0.0.7:80"},
		{name: "AGENTGW_ADDR", env: map[string]string{"AGENTGW_ADDR": ":7070"}, want: "http://localhost:7070"},
		{name: "publicURL from the config file", args: []string{"--config", conf}, want: "https://file.example"},
		{name: "publicURL from the environment", env: map[string]string{"AGENTGW_PUBLIC_URL": "https://env.example"}, args: []string{"--config", conf}, want: "https://env.example"},
		{name: "publicURL beats --addr", env: map[string]string{"AGENTGW_PUBLIC_URL": "https://env.example"}, args: []string{"--addr", ":1"}, want: "https://env.example"},
		{name: "--endpoint beats publicURL", env: map[string]string{"AGENTGW_PUBLIC_URL": "https://env.example"}, args: []string{"--endpoint", "https://flag.example"}, want: "https://flag.example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.env, append(append([]string{"export"}, tt.args...), "hello")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var def map[string]any
			if err := json.Unmarshal([]byte(stdout), &def); err != nil {
				t.Fatalf("export printed no JSON: %v\n%s", err, stdout)
			}
			svc, _ := def["service"].(map[string]any)
			if got := svc["endpoint"]; got != tt.want {
				t.Errorf("service = %v, want endpoint %q", def["service"], tt.want)
			}
		})
	}
}

func TestExportAgentsDir(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "mine.yaml", "name: mine\ndescription: Mine.\ncommands:\n  - name: default\n    reply: ok\n")
	code, stdout, stderr := runCLI(t, nil, "export", "--agents", dir, "mine")
	if code != 0 || !strings.Contains(stdout, `"name": "mine"`) {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// With --agents the embedded examples are not loaded.
	code, _, stderr = runCLI(t, nil, "export", "--agents", dir, "hello")
	if code != 1 || !strings.Contains(stderr, `agentgw: no agent named "hello"`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestExportErrors(t *testing.T) {
	bad := t.TempDir()
	writeFile(t, bad, "broken.yaml", brokenAgent)
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr []string
	}{
		{name: "unknown agent", args: []string{"nope"}, wantCode: 1, wantStderr: []string{"agentgw: no agent named \"nope\"\n"}},
		{name: "broken agent shows why", args: []string{"--agents", bad, "broken"}, wantCode: 1,
			wantStderr: []string{`broken.yaml:1:1: agent "broken": a "default" command is required`, `agentgw: no agent named "broken"`}},
		{name: "no name", args: nil, wantCode: 2, wantStderr: []string{"agentgw export: want NAME, got 0 arguments\nUsage: agentgw export NAME [flags]\n"}},
		{name: "two names", args: []string{"hello", "happy"}, wantCode: 2, wantStderr: []string{"agentgw export: want NAME, got 2 arguments\nUsage: agentgw export NAME [flags]\n"}},
		{name: "bad config", args: []string{"--config", filepath.Join(bad, "missing.yaml"), "hello"}, wantCode: 2, wantStderr: []string{"agentgw: reading config"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, append([]string{"export"}, tt.args...)...)
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d", code, tt.wantCode)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			for _, w := range tt.wantStderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not contain %q", stderr, w)
				}
			}
		})
	}
}
