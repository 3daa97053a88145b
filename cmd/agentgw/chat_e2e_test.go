package main

import (
	"testing"

	"github.com/agentgw/agentgw/chat/chattest"
)

// TestChatInteractiveHello clicks hello's button on the real gateway.
func TestChatInteractiveHello(t *testing.T) {
	ws := chattest.NewWorkspace(t)
	gw := startGateway(t, testConfig(t, ""), nil)
	code, stdout, stderr := runChat(t, "1\n", "--url", gw, "--agent", "hello", "--dir", ws.Dir, "--interactive")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	want := "Hello, Ada Lovelace!\nWelcome to agent hello!\n\n" +
		"  1) [ Get version ]  Shows the version of agent hello → runs command version\n" +
		"  q) quit\n" +
		"> 1\n" +
		"The current version is v1.0.0\n"
	if stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
}

// TestChatInteractiveFeedback sends feedback to the real gateway, which
// verifies the echoed, signed state: testdata/chat/agents/tour.yaml.
func TestChatInteractiveFeedback(t *testing.T) {
	cfg := testConfig(t, "")
	cfg.Agents = []string{"testdata/chat/agents"}
	gw := startGateway(t, cfg, nil)
	const choices = "\n" +
		"  1) [ Open findings ]  Open the findings? → accept\n" +
		"  2) [ Open findings ]  Open the findings? → dismiss\n" +
		"\n" +
		"  tree files:\n" +
		"    3) expand  src (dir): sources → sends feedback\n" +
		"      4) click  main.go (file) → runs command about\n" +
		"      5) expand  main.go (file) → asks \"main.go\"\n" +
		"  q) quit\n"
	tests := []struct {
		name, stdin, want string
	}{
		{"accept", "1\n", "> 1\nNoted. This action has no follow-up configured.\n"},
		{"dismiss", "2\n", "> 2\nOK, nothing was done.\n"},
		{"expand", "3\n", "> 3\nNothing to show for expand on node \"src\".\n"},
		{"a node's command", "4\n", "> 4\nFiles are where code lives.\n"},
		{"a node's name as the prompt, then feedback on the new answer", "5\n2\n",
			"> 5\nHere is the tour of main.go.\n" + choices + "> 2\nOK, nothing was done.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runChat(t, tt.stdin, "--url", gw, "--agent", "tour", "--dir", t.TempDir(), "--interactive")
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if want := "Here is the tour.\n" + choices + tt.want; stdout != want {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
			}
		})
	}
}
