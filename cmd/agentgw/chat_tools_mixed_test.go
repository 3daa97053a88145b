package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
)

// newMixedModel asks for say and read_file in one round; once it has both
// results it lists their call ids and statuses.
func newMixedModel(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Messages) == 0 {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		if body.Messages[len(body.Messages)-1].Role != "tool" {
			modelChunk(w, map[string]any{"tool_calls": []any{
				map[string]any{"index": 0, "id": "u1", "type": "function", "function": map[string]any{"name": "say", "arguments": `{"text":"hi"}`}},
				map[string]any{"index": 1, "id": "u2", "type": "function", "function": map[string]any{"name": "read_file", "arguments": `{"path":"calc.go"}`}},
			}}, "")
			modelChunk(w, map[string]any{}, "tool_calls")
			fmt.Fprint(w, "data: [DONE]\n\n")
			return
		}
		var lines []string
		for _, m := range body.Messages {
			var res struct{ CallID, Status string }
			if m.Role == "tool" && json.Unmarshal([]byte(m.Content), &res) == nil {
				lines = append(lines, res.CallID+" "+res.Status)
			}
		}
		modelChunk(w, map[string]any{"content": strings.Join(lines, ", ")}, "")
		modelChunk(w, map[string]any{}, "stop")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv.URL
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
