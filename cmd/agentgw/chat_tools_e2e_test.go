package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/llm/llmtest"
)

// newReaderModel is a model platform for testdata/chat/toolagents/reader.yaml:
// it asks for read_file {"path": path}, and once it has the tool's answer
// it quotes the file, or says why it could not read it.
func newReaderModel(t *testing.T, path string) *llmtest.Model {
	return llmtest.New(t, llmtest.Respond(func(r llmtest.Request) llmtest.Reply {
		last := r.LastMessage()
		switch {
		case r.Messages == nil:
			return llmtest.Error(http.StatusBadRequest, "bad request")
		case last.Role != "tool":
			return llmtest.Calls(llmtest.ToolCall{ID: "up_call_1", Name: "read_file", Arguments: `{"path": ` + jsonOf(path) + `}`})
		}
		var res struct {
			Status string
			Result struct{ Content string }
			Error  struct{ Code string }
		}
		_ = json.Unmarshal([]byte(last.Content), &res)
		if res.Status == "SUCCESS" {
			return llmtest.Text("calc.go says:\n" + res.Result.Content)
		}
		return llmtest.Text("I could not read calc.go: " + res.Error.Code)
	}))
}

// toolMessages are the tool messages m received last in a request
// ("CALLID CONTENT"), in order.
func toolMessages(m *llmtest.Model) []string {
	var out []string
	for _, r := range m.Requests() {
		if last := r.LastMessage(); last.Role == "tool" {
			out = append(out, last.ToolCallID+" "+last.Content)
		}
	}
	return out
}

// TestChatFrontendToolEndToEnd runs chat against the real gateway: the
// gateway relays the model's read_file call as a copilot_tool_call, chat
// reads the file in --dir and sends the result, the gateway resumes the
// model's conversation with it.
func TestChatFrontendToolEndToEnd(t *testing.T) {
	const call = `read_file {"path":"calc.go"}`
	tests := []struct {
		name   string
		args   []string
		stdin  string
		stdout string
		result string // in the tool message the model got
	}{
		{name: "--allow-tools", args: []string{"--allow-tools"},
			stdout: "↳ " + call + " … done\ncalc.go says:\n" + calcGo,
			result: `"status":"SUCCESS","result":{"content":` + jsonOf(calcGo) + `,"endLine":3,"path":"calc.go","startLine":1,"truncated":false}`},
		{name: "interactive consent", args: []string{"--interactive"}, stdin: "y\n",
			stdout: "Let the agent read this file? (" + call + ") [y/N] y\n↳ " + call + " … done\ncalc.go says:\n" + calcGo,
			result: `"status":"SUCCESS"`},
		{name: "declined without --allow-tools", args: nil,
			stdout: "↳ " + call + " … declined (run chat with --allow-tools to let the agent use tools) — fallback SKIP: the agent may go on without it\n" +
				"I could not read calc.go: DECLINED\n",
			result: `"status":"ERROR","error":{"code":"DECLINED","message":"the user did not allow it: agentgw chat runs tools only with --allow-tools"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := newReaderModel(t, "calc.go")
			cfg := testConfig(t, model.URL())
			cfg.Agents = []string{"testdata/chat/toolagents"}
			gw := startGateway(t, cfg, nil)
			args := append([]string{"--url", gw, "--agent", "reader", "--dir", newCalcDir(t)}, tt.args...)
			code, stdout, stderr := runChat(t, tt.stdin, append(args, "fix it")...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if stdout != tt.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, tt.stdout)
			}
			tools := toolMessages(model)
			if len(tools) != 1 || !strings.HasPrefix(tools[0], "up_call_1 ") || !strings.Contains(tools[0], tt.result) {
				t.Errorf("the model's tool messages %q, want one for up_call_1 with %s", tools, tt.result)
			}
		})
	}
}

// TestChatToolErrorReachesModel: chat asked to read a file outside its
// --dir answers OUTSIDE_WORKSPACE; the tool ran and failed, so the gateway
// gives that error to the model, which answers with it, even though the
// tool's fallbackBehavior is ABORT (the default): that applies only to a
// tool that could not run.
func TestChatToolErrorReachesModel(t *testing.T) {
	model := newReaderModel(t, "../secret.go")
	agents := t.TempDir()
	def, err := os.ReadFile("testdata/chat/toolagents/reader.yaml")
	if err != nil {
		t.Fatal(err)
	}
	def = bytes.Replace(def, []byte("    fallbackBehavior: SKIP\n"), nil, 1)
	if err := os.WriteFile(filepath.Join(agents, "reader.yaml"), def, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, model.URL())
	cfg.Agents = []string{agents}
	gw := startGateway(t, cfg, nil)
	code, stdout, stderr := runChat(t, "", "--url", gw, "--agent", "reader", "--dir", newCalcDir(t), "--allow-tools", "fix it")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	tools := toolMessages(model)
	const want = `{"callId":"up_call_1","status":"ERROR","error":{"code":"OUTSIDE_WORKSPACE","message":`
	if len(tools) != 1 || !strings.HasPrefix(tools[0], "up_call_1 "+want) {
		t.Fatalf("the model's tool messages %q, want one starting %s", tools, want)
	}
	if !strings.HasSuffix(stdout, "I could not read calc.go: OUTSIDE_WORKSPACE\n") || strings.Contains(stdout, "fallback") {
		t.Errorf("stdout:\n%s", stdout)
	}
}
