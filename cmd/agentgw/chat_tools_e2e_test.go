package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// readerModel is a model platform for testdata/chat/toolagents/reader.yaml:
// it asks for read_file {"path":"calc.go"}, and once it has the tool's
// answer it quotes the file, or says why it could not read it.
type readerModel struct {
	*httptest.Server
	mu    sync.Mutex
	tools []string // the tool messages it received, in order
	path  string   // the file it asks for
}

func newReaderModel(t *testing.T) *readerModel {
	m := &readerModel{path: "calc.go"}
	m.Server = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.Close)
	return m
}

func (m *readerModel) serve(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    string `json:"content"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Messages) == 0 {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	last := body.Messages[len(body.Messages)-1]
	if last.Role != "tool" {
		call := map[string]any{"index": 0, "id": "up_call_1", "type": "function",
			"function": map[string]any{"name": "read_file", "arguments": `{"path": ` + jsonOf(m.path) + `}`}}
		modelChunk(w, map[string]any{"tool_calls": []any{call}}, "")
		modelChunk(w, map[string]any{}, "tool_calls")
		fmt.Fprint(w, "data: [DONE]\n\n")
		return
	}
	m.mu.Lock()
	m.tools = append(m.tools, last.ToolCallID+" "+last.Content)
	m.mu.Unlock()
	var res struct {
		Status string
		Result struct{ Content string }
		Error  struct{ Code string }
	}
	_ = json.Unmarshal([]byte(last.Content), &res)
	text := "I could not read calc.go: " + res.Error.Code
	if res.Status == "SUCCESS" {
		text = "calc.go says:\n" + res.Result.Content
	}
	modelChunk(w, map[string]any{"role": "assistant", "content": text}, "")
	modelChunk(w, map[string]any{}, "stop")
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func modelChunk(w http.ResponseWriter, delta map[string]any, finish string) {
	choice := map[string]any{"index": 0, "delta": delta, "finish_reason": nil}
	if finish != "" {
		choice["finish_reason"] = finish
	}
	data, _ := json.Marshal(map[string]any{"id": "chatcmpl-r", "object": "chat.completion.chunk", "created": 1, "model": "fake-1", "choices": []any{choice}})
	fmt.Fprintf(w, "data: %s\n\n", data)
	w.(http.Flusher).Flush()
}

// received returns the tool messages so far.
func (m *readerModel) received() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.tools...)
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
			model := newReaderModel(t)
			cfg := testConfig(t, model.URL)
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
			tools := model.received()
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
	model := newReaderModel(t)
	model.path = "../secret.go"
	agents := t.TempDir()
	def, err := os.ReadFile("testdata/chat/toolagents/reader.yaml")
	if err != nil {
		t.Fatal(err)
	}
	def = bytes.Replace(def, []byte("    fallbackBehavior: SKIP\n"), nil, 1)
	if err := os.WriteFile(filepath.Join(agents, "reader.yaml"), def, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, model.URL)
	cfg.Agents = []string{agents}
	gw := startGateway(t, cfg, nil)
	code, stdout, stderr := runChat(t, "", "--url", gw, "--agent", "reader", "--dir", newCalcDir(t), "--allow-tools", "fix it")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	tools := model.received()
	const want = `{"callId":"up_call_1","status":"ERROR","error":{"code":"OUTSIDE_WORKSPACE","message":`
	if len(tools) != 1 || !strings.HasPrefix(tools[0], "up_call_1 "+want) {
		t.Fatalf("the model's tool messages %q, want one starting %s", tools, want)
	}
	if !strings.HasSuffix(stdout, "I could not read calc.go: OUTSIDE_WORKSPACE\n") || strings.Contains(stdout, "fallback") {
		t.Errorf("stdout:\n%s", stdout)
	}
}
