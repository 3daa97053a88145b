package collab

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/request"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/tools"
)

// toolCallingModel is lead's model: it calls ask_agent with args, then
// answers with the tool's result; helper's model answers "forty-two".
func toolCallingModel(t *testing.T, args string) *llmtest.Model {
	return llmtest.New(t, llmtest.Respond(func(r llmtest.Request) llmtest.Reply {
		switch last := r.LastMessage(); {
		case last.Role == "tool":
			return llmtest.Text("The helper says: " + last.Content)
		case r.Tools != nil:
			return llmtest.Calls(llmtest.ToolCall{ID: "c1", Name: "ask_agent", Arguments: args})
		}
		return llmtest.Text("forty-two")
	}))
}

// runLead runs lead's default command with prompt, as a plugin would.
func runLead(t *testing.T, r *runner.Runner, prompt string) *emit.Recorder {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"agent": "lead", "contextVariables": []any{map[string]any{"name": "userInputPrompt", "value": prompt}}})
	req, err := request.Decode(body)
	if err != nil {
		t.Fatal(err)
	}
	run, err := r.Prepare(req)
	if err != nil {
		t.Fatal(err)
	}
	rec := &emit.Recorder{}
	run.Execute(t.Context(), rec)
	return rec
}

// TestAskAgentTool: lead's model calls ask_agent; the helper's answer is
// the tool's result, given back to lead's model; the request was sent
// from lead (the caller the runner names).
func TestAskAgentTool(t *testing.T) {
	m := toolCallingModel(t, `{"agent": "helper", "question": "What is 6 times 7?"}`)
	var logs bytes.Buffer
	_, r := newTestAsker(t, m, Config{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	rec := runLead(t, r, "ask the helper")
	if e := rec.Err(); e != nil {
		t.Fatal(e)
	}
	got := rec.Transcript()
	if !strings.Contains(got, "> running ask_agent") || !strings.Contains(got, "The helper says: ") {
		t.Errorf("transcript %q", got)
	}
	reqs := m.Requests()
	if len(reqs) != 3 || lastUser(reqs[1]) != "What is 6 times 7?" {
		t.Fatalf("model requests %v", reqs)
	}
	result := reqs[2].LastMessage().Content
	if !strings.Contains(result, `"status":"SUCCESS"`) || !strings.Contains(result, `"result":"forty-two"`) {
		t.Errorf("tool result %s", result)
	}
	if !strings.Contains(logs.String(), `"msg":"ask answered"`) || !strings.Contains(logs.String(), `"from":"lead","to":"helper"`) {
		t.Errorf("logs %s", logs.String())
	}
}

// TestAskAgentToolErrors: the tool's result for an error response, a
// refused ask and a timeout.
func TestAskAgentToolErrors(t *testing.T) {
	m := blockingModel(t, "")
	a, _ := newTestAsker(t, m, Config{})
	tm := tools.NewManager(tools.Config{Builtins: Builtins(a)})
	params := map[string]any{"type": "object", "properties": map[string]any{"agent": map[string]any{}, "question": map[string]any{}, "command": map[string]any{}}}
	tool, _, err := tm.Compile(tools.Spec{Name: "ask_agent", Runtime: "builtin", Entry: BuiltinAskAgent, Parameters: params}, ".")
	if err != nil {
		t.Fatal(err)
	}
	call := func(caller string, p map[string]any) toolspec.Result {
		return tool.Call(tools.WithCaller(t.Context(), tools.Caller{Agent: caller}), tools.Call{ID: "c", Parameters: p})
	}
	for _, tt := range []struct {
		name, caller string
		params       map[string]any
		code, msg    string
	}{
		{"error response", "lead", map[string]any{"agent": "helper", "question": "q", "command": "nosuch"}, "TOOL_FAILED", `agent "helper" answered with an error: COMMAND_NOT_FOUND: `},
		{"self", "helper", map[string]any{"agent": "helper", "question": "q"}, "TOOL_FAILED", `agent "helper" may not ask itself`},
		{"missing", "lead", map[string]any{"agent": "helper"}, "INVALID_PARAMETERS", "ask_agent needs agent and question"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := call(tt.caller, tt.params)
			if r.Status != toolspec.StatusError || r.Error.Code != tt.code || !strings.HasPrefix(r.Error.Message, tt.msg) {
				t.Errorf("result %+v %+v, want %s %q", r, r.Error, tt.code, tt.msg)
			}
		})
	}
	// The tool's own deadline ends the ask: a TIMEOUT result, a CANCEL
	// sent, the helper's model request ended.
	short, _, err := tm.Compile(tools.Spec{Name: "ask_agent", Runtime: "builtin", Entry: BuiltinAskAgent, Timeout: 20 * time.Millisecond, Parameters: params}, ".")
	if err != nil {
		t.Fatal(err)
	}
	r := short.Call(tools.WithCaller(t.Context(), tools.Caller{Agent: "lead"}), tools.Call{ID: "c", Parameters: map[string]any{"agent": "helper", "question": "slow?"}})
	if r.Status != toolspec.StatusTimeout {
		t.Errorf("result %+v %+v, want TIMEOUT", r, r.Error)
	}
	m.Ended(t)
}
