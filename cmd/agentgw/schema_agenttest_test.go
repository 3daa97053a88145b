package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testedAgent is the agent the test files of TestSchemaAgreesWithAgentTest
// test.
const testedAgent = `name: t
commands:
  - name: default
    reply: hi
`

// validAgentTest is the test file the invalid ones change; it passes.
const validAgentTest = `tests:
  - name: says hi
    request: {}
    expect:
      text: {equals: hi}
`

// TestSchemaAgreesWithAgentTest: on a table of test files, agentgw test
// and the agent test schema agree: both accept the valid ones and both
// reject each invalid one (agentgw test with a message naming the
// problem).
func TestSchemaAgreesWithAgentTest(t *testing.T) {
	s := compileSchemaFile(t, testSchemaFile)
	tests := []struct {
		name, file string
		want       string // in agentgw test's output; "" for a passing file
	}{
		{"valid", validAgentTest, ""},
		{"valid with stubs and a bare number", validAgentTest + "  - name: n\n    request: {command: default}\n    tools: {lookup: {result: {n: 1}}}\n" +
			"    steps: {a: {error: {errorCode: X, message: m}}}\n    expect: {text: {notContains: 42}}\n", ""},
		{"unknown field", strings.Replace(validAgentTest, "text:", "txt:", 1), `unknown field "txt"; did you mean "text"?`},
		{"no tests", "tests: []\n", "no tests"},
		{"tests not a list", "tests: {name: x}\n", "expected a list"},
		{"test without a name", strings.Replace(validAgentTest, "name: says hi", "request: {}", 1) + "    name: \"\"\n", "name is required"},
		{"equals a mapping", strings.Replace(validAgentTest, "{equals: hi}", "{equals: {x: hi}}", 1), "expected a string"},
		{"model answer not a mapping", validAgentTest + "    model: [hi]\n", "expected a mapping"},
		{"status not a number", validAgentTest + "    model: [{status: busy}]\n", "expected an integer"},
		{"stubs not a mapping", validAgentTest + "    tools: [lookup]\n", "expected a mapping of names"},
		{"stub field unknown", validAgentTest + "    tools: {lookup: {reslt: 1}}\n", `unknown field "reslt"`},
		{"accepted not a boolean", validAgentTest + "    then:\n      - action: {accepted: maybe}\n", "expected true or false"},
		{"click kind unknown", validAgentTest + "    then:\n      - action: {action: button}\n", `"button" is not confirm or tree`},
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.yaml"), []byte(testedAgent), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "t_test.yaml")
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(file, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runCLI(t, nil, "test", dir)
			serr := validateYAML(s, []byte(tc.file))
			if tc.want == "" {
				if code != 0 || serr != nil {
					t.Errorf("case %d: want both to accept; agentgw test exit %d:\n%s%s\nschema: %v", i, code, stdout, stderr, serr)
				}
				return
			}
			if code != 1 || !strings.Contains(stdout, tc.want) {
				t.Errorf("agentgw test: exit %d, want 1 and a failure with %q:\n%s%s", code, tc.want, stdout, stderr)
			}
			if serr == nil {
				t.Errorf("the schema accepts what agentgw test rejects (%s)", tc.want)
			}
		})
	}
}
