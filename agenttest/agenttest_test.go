package agenttest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/tools"
	"github.com/agentgw/agentgw/tools/toolload"
)

// load is a Loader over the runner's own step kinds and tool runtimes.
func load(paths []string, stubs *Stubs) Loaded {
	m := tools.NewManager(tools.Config{})
	kinds := program.NewKinds()
	if stubs != nil {
		stubs.RegisterRuntimes(m)
	}
	agents, diags := program.LoadWith(program.LoadOptions{Tools: toolload.Compiler{Manager: m}, Kinds: kinds}, paths...)
	return Loaded{Agents: agents, Problems: diags, Kinds: kinds}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const echoAgent = `name: echo
commands:
  - name: default
    tools: [lookup]
    messageTemplates:
      - role: system
        template: You answer with what lookup says.
    actions:
      - action: confirm
        data: {title: Again, message: once more}
tools:
  - name: lookup
    description: Looks a word up.
    runtime: native
    entry: /bin/false
    parameters: {type: object, properties: {word: {type: string}}}
`

// TestRun runs test files against a small agent: what passes, and each
// failure at its line.
func TestRun(t *testing.T) {
	tests := []struct {
		name, file string
		wantOK     bool
		want       string // the report, exact
	}{
		{
			name: "a tool round and a feedback click", wantOK: true,
			file: `tests:
  - name: looks up
    request:
      contextVariables: [{name: userInputPrompt, value: cat}]
    model:
      - toolCalls: [{name: lookup, arguments: {word: cat}}]
      - text: A cat is an animal.
    tools:
      lookup: {result: {meaning: animal}}
    expect:
      text: {equals: "\n> running lookup {\"word\":\"cat\"}\nA cat is an animal."}
      toolCalls: [{name: lookup, arguments: {word: cat}}]
      prompts:
        - {model: m1, tools: [lookup], messages: [{role: system}, {role: user, equals: cat}]}
        - messages: [{role: system}, {role: user}, {role: assistant}, {role: tool, contains: '"result":{"meaning":"animal"}'}]
      actions: [{action: confirm, title: Again}]
    then:
      - action: {title: Again}
        expect:
          text: {equals: Noted. This action has no follow-up configured.}
          prompts: []
`,
			want: "ok   DIR/echo_test.yaml: 1 tests (agent echo)\nPASS: 1 tests in 1 files\n",
		},
		{
			name: "every kind of failure",
			file: `tests:
  - name: fails
    request:
      contextVariables: [{name: userInputPrompt, value: cat}]
    model:
      - toolCalls: [{name: lookup}]
      - text: A cat.
      - text: never asked for
    expect:
      text: {contains: dog, matches: '^A', notContains: cat}
      prompt: {model: m2}
      actions: [{title: Later}]
    then:
      - action: {title: Nope}
`,
			want: "--- FAIL: fails (DIR/echo_test.yaml:2)\n" +
				"DIR/echo_test.yaml:2: tools: no stub for lookup (add it under tools:)\n" +
				"DIR/echo_test.yaml:6: model: 1 of the 3 recorded answers were not used (the gateway called the model 2 times)\n" +
				"DIR/echo_test.yaml:10: text contains\n    expected: \"dog\"\n         got: \"\\n> running lookup {}\\nA cat.\"\n" +
				"DIR/echo_test.yaml:10: text does not contain\n    expected: \"cat\"\n         got: \"\\n> running lookup {}\\nA cat.\"\n" +
				"DIR/echo_test.yaml:10: text matches\n    expected: /^A/\n         got: \"\\n> running lookup {}\\nA cat.\"\n" +
				"DIR/echo_test.yaml:11: prompt.model\n    expected: \"m2\"\n         got: \"m1\"\n" +
				"DIR/echo_test.yaml:12: actions[0].title\n    expected: \"Later\"\n         got: \"Again\"\n" +
				"DIR/echo_test.yaml:14: action: the answer has no confirm titled \"Nope\" (it has \"Again\")\n" +
				"FAIL DIR/echo_test.yaml: 1 of 1 tests failed (agent echo)\nFAIL: 1 of 1 tests failed\n",
		},
		{
			name: "an unknown field is a test file error",
			file: "tests:\n  - name: x\n    request: {}\n    expect: {txt: {equals: a}}\n",
			want: "DIR/echo_test.yaml:4:14: test file.tests[0].expect: unknown field \"txt\"; did you mean \"text\"?\n" +
				"FAIL DIR/echo_test.yaml: the test file has 1 errors\nFAIL: 1 of 1 tests failed\n",
		},
		{
			name: "an upstream error unexpected",
			file: "tests:\n  - name: x\n    request: {}\n    model: [{status: 429, error: slow down}]\n",
			want: "--- FAIL: x (DIR/echo_test.yaml:2)\n" +
				"DIR/echo_test.yaml:3: the answer failed\n    expected: no error\n         got: UPSTREAM_ERROR: the model platform answered 429: slow down\n" +
				"FAIL DIR/echo_test.yaml: 1 of 1 tests failed (agent echo)\nFAIL: 1 of 1 tests failed\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "echo.yaml", echoAgent)
			write(t, dir, "echo_test.yaml", tc.file)
			suites, err := Discover([]string{dir})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			sum, err := Run(context.Background(), Config{Load: load, Out: &out, Runner: runner.RunnerConfig{DefaultModel: "m1"}}, suites)
			if err != nil {
				t.Fatal(err)
			}
			if sum.OK() != tc.wantOK {
				t.Errorf("OK() = %v, want %v", sum.OK(), tc.wantOK)
			}
			if got, want := out.String(), strings.ReplaceAll(tc.want, "DIR", dir); got != want {
				t.Errorf("report:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestLoaderIgnoresTestFiles: a directory's *_test.yaml files are not
// agent definitions.
func TestLoaderIgnoresTestFiles(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "echo.yaml", echoAgent)
	write(t, dir, "echo_test.yaml", "tests: []\n")
	write(t, dir, "other_test.yml", "tests: []\n")
	agents, diags := program.LoadWith(program.LoadOptions{Tools: toolload.Default()}, dir)
	if len(agents) != 1 || len(diags) != 0 {
		t.Errorf("loaded %d agents, problems %v", len(agents), diags)
	}
	for name, want := range map[string]bool{"a_test.yaml": true, "a_test.yml": true, "a.yaml": false, "a_test.json": false, "a_tests.yaml": false} {
		if IsTestFile(name) != want || agent.IsDefinitionFile(name) == want && name != "a_test.json" {
			t.Errorf("%s: IsTestFile %v, IsDefinitionFile %v", name, IsTestFile(name), agent.IsDefinitionFile(name))
		}
	}
}

// TestReplayStream is the exact stream the replay answers a streamed call
// with a tool call.
func TestReplayStream(t *testing.T) {
	f, diags := Parse("x_test.yaml", []byte("tests:\n  - name: x\n    model:\n      - text: hi\n        toolCalls: [{name: f, arguments: {a: 1}}]\n"))
	if diags.Errors() > 0 {
		t.Fatal(diags)
	}
	r := &replay{}
	r.reset(f.Tests[0].Model)
	req, _ := http.NewRequest(http.MethodPost, ModelURL+"/chat/completions", strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"q"}]}`))
	resp, err := r.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	want := `data: {"choices":[{"delta":{"content":"hi","role":"assistant"},"finish_reason":null,"index":0}],"created":0,"id":"chatcmpl-agenttest","model":"m","object":"chat.completion.chunk"}

data: {"choices":[{"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},"finish_reason":null,"index":0}],"created":0,"id":"chatcmpl-agenttest","model":"m","object":"chat.completion.chunk"}

data: {"choices":[{"delta":{},"finish_reason":"tool_calls","index":0}],"created":0,"id":"chatcmpl-agenttest","model":"m","object":"chat.completion.chunk"}

data: [DONE]

`
	if string(body) != want {
		t.Errorf("stream:\n%s\nwant:\n%s", body, want)
	}
	calls, used := r.taken()
	if used != 1 || len(calls) != 1 || calls[0].Model != "m" || calls[0].Messages[0].Content != "q" {
		t.Errorf("taken: %+v, %d", calls, used)
	}
}
