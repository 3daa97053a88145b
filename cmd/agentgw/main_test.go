package main

import (
	"bytes"
	"strings"
	"testing"
)

// envOf returns a getenv func over a fixed map, so that tests never read the
// real environment.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// runCLI runs the command line and returns its exit code and outputs.
func runCLI(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, envOf(env), strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestRunSubcommands(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{name: "version", args: []string{"version"}, wantCode: 0, wantStdout: "agentgw "},
		{name: "--version", args: []string{"--version"}, wantCode: 0, wantStdout: "agentgw "},
		{name: "-v", args: []string{"-v"}, wantCode: 0, wantStdout: "agentgw "},
		{name: "help", args: []string{"help"}, wantCode: 0, wantStdout: "Available Commands:\n  chat "},
		{name: "-h", args: []string{"-h"}, wantCode: 0, wantStdout: "Available Commands:\n  chat "},
		{name: "--help", args: []string{"--help"}, wantCode: 0, wantStdout: "Available Commands:\n  chat "},
		{name: "no command", args: nil, wantCode: 2, wantStderr: "Usage:\n  agentgw [flags]\n  agentgw [command]\n\nAvailable Commands:\n  chat "},
		{name: "unknown", args: []string{"srve"}, wantCode: 2,
			wantStderr: "agentgw: unknown command \"srve\" for \"agentgw\"\n\nDid you mean this?\n\tserve\nRun 'agentgw --help' for usage.\n"},
		{name: "bad flag", args: []string{"serve", "--nope"}, wantCode: 2, wantStderr: "agentgw serve: unknown flag: --nope\nUsage: agentgw serve [flags]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d (stderr %q)", code, tt.wantCode, stderr)
			}
			if !strings.Contains(stdout, tt.wantStdout) {
				t.Errorf("stdout = %q, want it to contain %q", stdout, tt.wantStdout)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr = %q, want it to contain %q", stderr, tt.wantStderr)
			}
		})
	}
}

func TestVersionString(t *testing.T) {
	code, stdout, _ := runCLI(t, nil, "version")
	v := strings.TrimPrefix(strings.TrimSuffix(stdout, "\n"), "agentgw ")
	if code != 0 || v == "" || strings.ContainsAny(v, " \n") {
		t.Fatalf("version printed %q (exit %d), want \"agentgw <version>\\n\"", stdout, code)
	}
	if v != versionString() {
		t.Errorf("printed version %q, versionString() = %q", v, versionString())
	}
}
