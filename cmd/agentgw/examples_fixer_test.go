package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentgw/agentgw/configs"
	"github.com/agentgw/agentgw/llm/llmtest"
)

// fixerModel plays the model of the test fixer: it runs the tests, reads
// the file the failure names, then proposes a fix quoting what it saw.
// It is as strict as a real model: a conversation that is not one (a
// message that is not an object with a role, no question, a tool call
// without its result) is a 400, and each request must carry the
// conversation of the one before, byte for byte, and then more.
type fixerModel struct {
	mu   sync.Mutex
	seen []string          // the tool messages it received
	last []json.RawMessage // the messages of the last request
}

func (m *fixerModel) answer(r llmtest.Request) llmtest.Reply {
	var body struct {
		Messages []json.RawMessage `json:"messages"`
	}
	_ = json.Unmarshal(r.Body, &body)
	m.mu.Lock()
	prev := m.last
	m.last = body.Messages
	m.mu.Unlock()
	tools, err := strictConversation(body.Messages, prev)
	if err != nil {
		return llmtest.JSON(http.StatusBadRequest, fmt.Sprintf(`{"error":{"message":%q,"type":"invalid_request_error"}}`, err.Error()))
	}
	m.mu.Lock()
	m.seen = tools
	m.mu.Unlock()
	call := func(text, name, args string) llmtest.Reply {
		return llmtest.Answer{Text: []string{text}, Calls: []llmtest.ToolCall{{ID: "c" + fmt.Sprint(len(tools)), Name: name, Arguments: args}}}.Reply()
	}
	switch len(tools) {
	case 0:
		return call("Running the tests. ", "run_tests", `{}`)
	case 1:
		return call("A test fails; reading calc.go. ", "read_file", `{"path": "calc.go"}`)
	}
	return llmtest.Text("Fix: calc.go returns a - b; it should return a + b.")
}

// strictConversation checks msgs as a strict model does, and that they
// begin with prev, byte for byte; it returns the tool messages' contents.
func strictConversation(msgs, prev []json.RawMessage) ([]string, error) {
	if len(msgs) < len(prev) {
		return nil, fmt.Errorf("the conversation lost messages: %d, was %d", len(msgs), len(prev))
	}
	for i := range prev {
		if string(msgs[i]) != string(prev[i]) {
			return nil, fmt.Errorf("messages[%d] is %s, was %s", i, msgs[i], prev[i])
		}
	}
	var tools []string
	var open []string // tool call ids waiting for their results
	users := 0
	for i, raw := range msgs {
		var msg struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		}
		if err := json.Unmarshal(raw, &msg); err != nil || !strings.HasPrefix(string(raw), "{") || msg.Role == "" {
			return nil, fmt.Errorf("messages[%d]: %s is not a message", i, raw)
		}
		if msg.Role != "tool" && len(open) > 0 {
			return nil, fmt.Errorf("messages[%d]: tool calls %q have no result", i, open)
		}
		switch msg.Role {
		case "user":
			users++
		case "assistant":
			for _, c := range msg.ToolCalls {
				open = append(open, c.ID)
			}
		case "tool":
			j := slices.Index(open, msg.ToolCallID)
			if j < 0 {
				return nil, fmt.Errorf("messages[%d]: a result for no call (%q)", i, msg.ToolCallID)
			}
			open = slices.Delete(open, j, j+1)
			tools = append(tools, fmt.Sprint(msg.Content))
		}
	}
	if users == 0 {
		return nil, errors.New("the conversation has no user message")
	}
	return tools, nil
}

// TestFixerExample: the embedded test fixer asks before running the tests,
// runs `go test` in the project for real, has the IDE read the failing file
// through a frontend tool, and answers with a fix.
func TestFixerExample(t *testing.T) {
	project := t.TempDir()
	files := map[string]string{
		"go.mod":       "module fixme\n\ngo 1.26\n",
		"calc.go":      "package fixme\n\n// Add adds.\nfunc Add(a, b int) int { return a - b }\n",
		"calc_test.go": "package fixme\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n",
	}
	fixer, err := configs.FS.ReadFile("agents/fixer.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files["agents/fixer.yaml"] = string(fixer)
	for name, content := range files {
		p := filepath.Join(project, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	model := &fixerModel{}
	up := llmtest.New(t, llmtest.Respond(model.answer))
	cfg := testConfig(t, up.URL())
	cfg.Agents = []string{filepath.Join(project, "agents")}
	// The tool runs where the agent file is: point its workdir at the project.
	cfg.Tools.WorkRoots = []string{project}
	setWorkdir(t, filepath.Join(project, "agents", "fixer.yaml"), "..")
	env := map[string]string{}
	for _, k := range []string{"PATH", "HOME", "GOPATH", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY"} {
		env[k] = os.Getenv(k)
	}
	base := startGateway(t, cfg, env)
	url := base + "/agents/fixer"

	first := ask(t, url, `{"contextVariables":[{"name":"userInputPrompt","value":"fix my tests"}]}`)
	consent := first.only(t)
	if consent.Action != "confirm" || !strings.Contains(consent.Data.Message, "Run go test ./...") {
		t.Fatalf("consent %+v", consent)
	}
	second := ask(t, url, `{"action":{"action":"confirm","state":`+string(consent.State)+`,"accepted":true}}`)
	var callID string
	for _, ev := range second.events {
		if ev.Name == "copilot_tool_call" {
			var f struct {
				CallID string         `json:"callId"`
				Name   string         `json:"name"`
				Params map[string]any `json:"parameters"`
			}
			_ = json.Unmarshal([]byte(ev.Data), &f)
			if f.Name != "read_file" || f.Params["path"] != "calc.go" {
				t.Fatalf("tool call %s", ev.Data)
			}
			callID = f.CallID
		}
	}
	if callID == "" || !strings.Contains(second.text, "> running run_tests") {
		t.Fatalf("after consent: %q %v", second.text, second.events)
	}
	model.mu.Lock()
	ran := strings.Join(model.seen, "\n")
	model.mu.Unlock()
	if !strings.Contains(ran, "Add(2, 3) = -1, want 5") {
		t.Fatalf("the model did not get the test failure: %s", ran)
	}
	third := ask(t, url, `{"toolResults":[{"callId":"`+callID+`","status":"SUCCESS","result":{"path":"calc.go","content":`+jsonString(files["calc.go"])+`}}]}`)
	if !strings.Contains(third.text, "it should return a + b") {
		t.Fatalf("final answer %q", third.text)
	}
	model.mu.Lock()
	defer model.mu.Unlock()
	if !strings.Contains(strings.Join(model.seen, "\n"), "return a - b") {
		t.Fatalf("the model did not get the file from the IDE: %v", model.seen)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// setWorkdir sets the workdir of every tool in an agent file.
func setWorkdir(t *testing.T, file, dir string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := strings.ReplaceAll(string(data), "    runtime: native\n", "    runtime: native\n    workdir: "+dir+"\n")
	if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}
