package main

import (
	"strings"
	"testing"

	"github.com/agentgw/agentgw/chat/chattest"
)

func TestChatGatewayErrors(t *testing.T) {
	ws := chattest.NewWorkspace(t)
	gw := startGateway(t, testConfig(t, ""), nil) // no upstream
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{
			name: "unknown agent", args: []string{"--agent", "revew"}, wantCode: 1,
			wantStderr: "agentgw chat: AGENT_NOT_FOUND (404): no agent named \"revew\"\n  hint: GET /agents lists the agents\n",
		},
		{
			name: "unknown command", args: []string{"--agent", "hello", "--command", "versoin"}, wantCode: 1,
			wantStderr: "agentgw chat: COMMAND_NOT_FOUND (404): agent \"hello\" has no command \"versoin\"; did you mean \"version\"?\n  hint: GET /agents/hello lists its commands\n",
		},
		{
			name: "a required variable missing", args: []string{"--agent", "coder", "--command", "explain"}, wantCode: 1,
			wantStderr: "note: activeEditor not collected: no --file given\n" +
				"agentgw chat: INVALID_CONTEXT_VARIABLE (422): command \"explain\" needs the context variable \"activeEditor\", and the request has none\n" +
				"  hint: collect \"activeEditor\" as GET /agents/coder describes\n",
		},
		{
			name: "an error inside the stream", args: []string{"--agent", "happy", "--file", ws.GoFile, "hi"}, wantCode: 1,
			wantStdout: "\nerror UPSTREAM_NOT_CONFIGURED: command \"default\" asks a model, but this gateway has no upstream model platform configured\n" +
				"  hint: start the gateway with --upstream URL (or AGENTGW_UPSTREAM_URL, or upstream.url in the config file), e.g. --upstream https://api.openai.com/v1 with upstream.auth key and OPENAI_API_KEY\n",
			wantStderr: "agentgw chat: the agent reported an error\n",
		},
		{
			name: "a selection outside the file", args: []string{"--agent", "coder", "--command", "explain", "--file", ws.GoFile, "--selection", "90-91"}, wantCode: 1,
			wantStderr: "note: activeEditor not collected: collecting the active editor: selection 90-91 is outside " + ws.GoFile + " (7 lines)\n" +
				"agentgw chat: INVALID_CONTEXT_VARIABLE (422)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--url", gw, "--dir", ws.Dir}, tt.args...)
			code, stdout, stderr := runChat(t, "", args...)
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d", code, tt.wantCode)
			}
			if stdout != tt.wantStdout {
				t.Errorf("stdout:\n%q\nwant:\n%q", stdout, tt.wantStdout)
			}
			if !strings.HasPrefix(stderr, tt.wantStderr) {
				t.Errorf("stderr:\n%q\nwant:\n%q", stderr, tt.wantStderr)
			}
		})
	}
}
