package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// examplesDir is configs/agents, from this package's directory.
var examplesDir = filepath.Join("..", "..", "configs", "agents")

// TestExampleAgentTests runs the tests every example agent ships with, from
// the source tree and from the binary's embedded copy.
func TestExampleAgentTests(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"configs/agents", []string{"test", "-v", examplesDir}},
		{"embedded", []string{"test", "-v"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, envOf(nil), nil, &stdout, &stderr)
			if code != 0 || stderr.Len() > 0 {
				t.Fatalf("agentgw test: exit %d\n%s%s", code, stdout.String(), stderr.String())
			}
			for _, name := range []string{"coder", "fixer", "happy", "hello", "repo", "reviewer", "security"} {
				if !strings.Contains(stdout.String(), name+"_test.yaml: ") || !strings.Contains(stdout.String(), "(agent "+name+")") {
					t.Errorf("no tests of agent %s ran:\n%s", name, stdout.String())
				}
			}
			if strings.Contains(stdout.String(), "FAIL") {
				t.Errorf("a test failed:\n%s", stdout.String())
			}
		})
	}
}

// copyExample copies files of configs/agents into a temporary directory,
// changing old to new in the first (the agent's definition).
func copyExample(t *testing.T, old, new string, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	for i, f := range files {
		data, err := os.ReadFile(filepath.Join(examplesDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			data = []byte(strings.Replace(string(data), old, new, 1))
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestAgentTestReportsBrokenExpectations changes an agent's template and
// checks that agentgw test names each expectation that broke, at its line,
// with what was expected and what came, and exits 1.
func TestAgentTestReportsBrokenExpectations(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		files    []string
		args     []string
		want     string // stdout, exact; DIR stands for the directory
	}{
		{
			name: "a reply template", old: "Welcome to agent hello!", new: "Welcome, says agent hello!",
			files: []string{"hello.yaml", "hello_test.yaml"},
			want: "--- FAIL: greets the user by nickname and offers the version (DIR/hello_test.yaml:4)\n" +
				"DIR/hello_test.yaml:11: text equals\n" +
				"    expected: \"Hello, Ann!\\nWelcome to agent hello!\"\n" +
				"         got: \"Hello, Ann!\\nWelcome, says agent hello!\"\n" +
				"--- FAIL: greets a user it does not know (DIR/hello_test.yaml:18)\n" +
				"DIR/hello_test.yaml:21: text equals\n" +
				"    expected: \"Hello, there!\\nWelcome to agent hello!\"\n" +
				"         got: \"Hello, there!\\nWelcome, says agent hello!\"\n" +
				"FAIL DIR/hello_test.yaml: 2 of 5 tests failed (agent hello)\n" +
				"FAIL: 2 of 5 tests failed\n",
		},
		{
			name: "a system prompt, against the golden prompt", old: "Answer concisely", new: "Answer at length",
			files: []string{"coder.yaml", "coder_test.yaml", "testdata/coder.default.prompt.golden"},
			args:  []string{"--run", "^default puts"},
			want: "--- FAIL: default puts the file, the branch and the selection in the prompt (DIR/coder_test.yaml:4)\n" +
				"DIR/coder_test.yaml:33: prompt.golden: the request differs from DIR/testdata/coder.default.prompt.golden at its line 6 (agentgw test --update rewrites it)\n" +
				"    expected: \"      \\\"content\\\": \\\"You are a senior software engineer helping a colleague inside their IDE.\\\\nAnswer concisely and show code in fenced blocks.\\\\nThe open file is src/sum.go (go).\\\\nThe workspace is on git branch feature/sum.\\\"\"\n" +
				"         got: \"      \\\"content\\\": \\\"You are a senior software engineer helping a colleague inside their IDE.\\\\nAnswer at length and show code in fenced blocks.\\\\nThe open file is src/sum.go (go).\\\\nThe workspace is on git branch feature/sum.\\\"\"\n" +
				"FAIL DIR/coder_test.yaml: 1 of 1 tests failed (agent coder)\n" +
				"FAIL: 1 of 1 tests failed\n",
		},
		{
			name: "a tool's name", old: "name: read_file", new: "name: read_source",
			files: []string{"fixer.yaml", "fixer_test.yaml"},
			want: "DIR/fixer.yaml:37:5: command \"default\": no tool named \"read_file\"\n" +
				"FAIL DIR/fixer_test.yaml: the agent definitions have 1 errors\n" +
				"FAIL: 1 of 1 tests failed\n",
		},
		{
			name: "a tool the model is offered", old: "tools: [run_tests, read_file]", new: "tools: [run_tests]",
			files: []string{"fixer.yaml", "fixer_test.yaml"},
			args:  []string{"--run", "proposes a fix"},
			want: "--- FAIL: runs the tests after consent, reads the failing test, proposes a fix (DIR/fixer_test.yaml:7)\n" +
				"DIR/fixer_test.yaml:28: prompt.tools\n" +
				"    expected: read_file, run_tests\n" +
				"         got: run_tests\n" +
				"DIR/fixer_test.yaml:42: toolCalls: count\n" +
				"    expected: 2\n" +
				"         got: 1: run_tests\n" +
				"DIR/fixer_test.yaml:60: prompt of call 2.messages[5] contains\n" +
				"    expected: \"func TestSum\"\n" +
				"         got: \"{\\\"callId\\\":\\\"call_2\\\",\\\"status\\\":\\\"ERROR\\\",\\\"error\\\":{\\\"code\\\":\\\"UNKNOWN_TOOL\\\",\\\"message\\\":\\\"there is no tool named \\\\\\\"read_file\\\\\\\"\\\"},\\\"executionTime\\\":0}\"\n" +
				"FAIL DIR/fixer_test.yaml: 1 of 1 tests failed (agent fixer)\n" +
				"FAIL: 1 of 1 tests failed\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyExample(t, tc.old, tc.new, tc.files...)
			var stdout, stderr bytes.Buffer
			code := run(append(append([]string{"test"}, tc.args...), dir), envOf(nil), nil, &stdout, &stderr)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if got, want := stdout.String(), strings.ReplaceAll(tc.want, "DIR", dir); got != want {
				t.Errorf("stdout:\n%s\nwant:\n%s", got, want)
			}
			if stderr.Len() > 0 {
				t.Errorf("stderr: %s", stderr.String())
			}
		})
	}
}

// TestAgentTestUpdate writes the golden prompt with --update, and the test
// then passes against it.
func TestAgentTestUpdate(t *testing.T) {
	dir := copyExample(t, "Answer concisely", "Answer at length", "coder.yaml", "coder_test.yaml")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"test", "--update", dir}, envOf(nil), nil, &stdout, &stderr); code != 0 {
		t.Fatalf("--update: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if !strings.HasSuffix(stdout.String(), "PASS: 5 tests in 1 files\n1 golden files written\n") {
		t.Errorf("--update: stdout:\n%s", stdout.String())
	}
	got, err := os.ReadFile(filepath.Join(dir, "testdata", "coder.default.prompt.golden"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(examplesDir, "testdata", "coder.default.prompt.golden"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != strings.ReplaceAll(string(want), "Answer concisely", "Answer at length") {
		t.Errorf("golden file:\n%s", got)
	}
	stdout.Reset()
	if code := run([]string{"test", dir}, envOf(nil), nil, &stdout, &stderr); code != 0 {
		t.Errorf("after --update: exit %d\n%s", code, stdout.String())
	}
}
