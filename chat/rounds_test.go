package chat

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
)

var (
	openAnswer = textFrame("Hi.") +
		actionFrame(`{"action":"confirm","state":"s1","data":{"title":"Open","message":"Open the file","command":"open"}}`) +
		stopFrame + doneFrame
	openMenu   = "Hi.\n\n  1) [ Open ]  Open the file → runs command open\n  q) quit\n"
	openInline = "Hi.\n\n  [ Open ]  Open the file → runs command open\n"
	// closeAnswer is open's answer: a confirm that sends feedback.
	closeAnswer = textFrame("Opened.") +
		actionFrame(`{"action":"confirm","state":"s2","data":{"title":"Close","message":"Close it?"}}`) +
		stopFrame + doneFrame
	closeMenu = "Opened.\n\n  1) [ Close ]  Close it? → accept\n  2) [ Close ]  Close it? → dismiss\n  q) quit\n"
)

func TestChatRounds(t *testing.T) {
	dir := newTourDir(t)
	tests := []struct {
		name       string
		args       []string
		stdin      string
		answers    []string
		wantCode   int
		wantStdout string
		wantStderr string
		requests   int
		contextID  string // the contextId every request must carry
	}{
		{name: "a second round after a follow-up", args: []string{"--interactive"}, stdin: "1\n2\n",
			answers:    []string{openAnswer, closeAnswer, plainAnswer},
			wantStdout: openMenu + "> 1\n" + closeMenu + "> 2\nDone.\n", requests: 3},
		{name: "--context names the conversation in every request", args: []string{"--interactive", "--context", "conv-9"}, stdin: "1\n2\n",
			answers:    []string{openAnswer, closeAnswer, plainAnswer},
			wantStdout: openMenu + "> 1\n" + closeMenu + "> 2\nDone.\n", requests: 3, contextID: `"conv-9"`},
		{name: "q quits", args: []string{"--interactive"}, stdin: "q\n1\n", answers: []string{openAnswer},
			wantStdout: openMenu + "> q\n", requests: 1},
		{name: "Q quits", args: []string{"--interactive"}, stdin: " Q\n", answers: []string{openAnswer},
			wantStdout: openMenu + ">  Q\n", requests: 1},
		{name: "an empty line quits", args: []string{"--interactive"}, stdin: "\n1\n", answers: []string{openAnswer},
			wantStdout: openMenu + "> \n", requests: 1},
		{name: "the end of the input quits", args: []string{"--interactive"}, answers: []string{openAnswer},
			wantStdout: openMenu + "> \n", requests: 1},
		{name: "an answer without actions ends", args: []string{"--interactive"}, stdin: "1\n", answers: []string{plainAnswer},
			wantStdout: "Done.\n", requests: 1},
		{name: "--once never prompts", args: []string{"--once"}, stdin: "1\n", answers: []string{openAnswer},
			wantStdout: openInline, requests: 1},
		{name: "stdin that is not a terminal does not prompt", stdin: "1\n", answers: []string{openAnswer},
			wantStdout: openInline, requests: 1},
		{name: "--once and --interactive", args: []string{"--once", "--interactive"}, stdin: "1\n", wantCode: 2,
			wantStderr: "agentgw chat: --interactive and --once exclude each other\n"},
		{name: "a follow-up that fails ends the session", args: []string{"--interactive"}, stdin: "1\n1\n",
			answers:  []string{openAnswer, textFrame("Opening") + errorFrame(`{"errorCode":"TOOL_FAILED","message":"no such file"}`) + stopFrame + doneFrame},
			wantCode: 1, wantStdout: openMenu + "> 1\nOpening\n\nerror TOOL_FAILED: no such file\n",
			wantStderr: "agentgw chat: the agent reported an error\n", requests: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, rec := newScriptedGateway(t, tourDefinition, tt.answers...)
			args := append([]string{"--url", url, "--agent", "tour", "--dir", dir}, tt.args...)
			code, stdout, stderr := runChat(t, tt.stdin, args...)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d", code, tt.wantCode)
			}
			if stdout != tt.wantStdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, tt.wantStdout)
			}
			if stderr != tt.wantStderr {
				t.Errorf("stderr %q, want %q", stderr, tt.wantStderr)
			}
			if n := rec.Count(); n != tt.requests {
				t.Fatalf("%d requests, want %d", n, tt.requests)
			}
			if want := tt.contextID; want != "" {
				for i, r := range rec.All() {
					if got := r.Member("contextId"); got != want {
						t.Errorf("request %d: contextId %s, want %s", i, got, want)
					}
				}
			}
			if tt.requests == 3 {
				reqs := rec.All()
				checkFeedback(t, reqs[1], reqs[2], `{"action":"confirm","state":"s2","accepted":false}`)
				if c := reqs[1].Member("command"); c != `"open"` {
					t.Errorf("the follow-up's command %s", c)
				}
			}
		})
	}
}

func TestStdinIsTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, r := range map[string]io.Reader{"a strings.Reader": strings.NewReader("1\n"), "a regular file": f} {
		if stdinIsTerminal(r) {
			t.Errorf("%s counts as a terminal", name)
		}
	}
}

// TestChooseInterrupted: an interrupt while waiting for a choice quits,
// even though the read itself stays blocked.
func TestChooseInterrupted(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	var out strings.Builder
	c := &chatClient{out: &out, in: newLineReader(pr, false)}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ch, err := c.choose(ctx, &menu{choices: []*choice{{text: "x"}}})
	if ch != nil || err != nil {
		t.Errorf("choose = %v, %v; want nil, nil", ch, err)
	}
	if out.String() != "> \n" {
		t.Errorf("output %q", out.String())
	}
}
