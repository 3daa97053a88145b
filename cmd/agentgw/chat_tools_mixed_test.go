package main

import (
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/llm/llmtest"
)

// newMixedModel asks for say and read_file in one round; once it has both
// results it lists their call ids and statuses.
func newMixedModel(t *testing.T) string {
	return llmtest.New(t, llmtest.Respond(func(r llmtest.Request) llmtest.Reply {
		switch {
		case r.Messages == nil:
			return llmtest.Error(http.StatusBadRequest, "bad request")
		case r.LastMessage().Role != "tool":
			return llmtest.Calls(llmtest.ToolCall{ID: "u1", Name: "say", Arguments: `{"text":"hi"}`},
				llmtest.ToolCall{ID: "u2", Name: "read_file", Arguments: `{"path":"calc.go"}`})
		}
		var lines []string
		for _, m := range r.Messages {
			var res struct{ CallID, Status string }
			if m.Role == "tool" && json.Unmarshal([]byte(m.Content), &res) == nil {
				lines = append(lines, res.CallID+" "+res.Status)
			}
		}
		return llmtest.Text(strings.Join(lines, ", "))
	})).URL()
}

// TestChatMixedToolRound: a round with a frontend call and a gateway tool
// that needs consent. chat answers the frontend call first and does not
// offer that answer's consent button; the gateway asks again after the
// results, and accepting it finishes the round.
func TestChatMixedToolRound(t *testing.T) {
	if _, err := exec.LookPath("echo"); err != nil {
		t.Skip("no echo binary")
	}
	cfg := testConfig(t, newMixedModel(t))
	cfg.Agents = []string{"testdata/chat/toolagents"}
	gw := startGateway(t, cfg, nil)
	code, stdout, stderr := runChat(t, "1\n", "--url", gw, "--agent", "mixed", "--dir", newCalcDir(t), "--interactive", "--allow-tools", "go")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	want := `↳ read_file {"path":"calc.go"} … done` + "\n\n" +
		`  1) [ Allow ]  Say it on the gateway? {"text":"hi"} → accept` + "\n" +
		`  2) [ Allow ]  Say it on the gateway? {"text":"hi"} → dismiss` + "\n" +
		"  q) quit\n> 1\n\n" +
		`> running say {"text":"hi"}` + "\n" +
		"u1 SUCCESS, u2 SUCCESS\n"
	if stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
}
