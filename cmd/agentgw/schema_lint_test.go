package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// validAgent is the agent the invalid ones change.
const validAgent = `name: t
commands:
  - name: default
    reply: hi
`

// planAgent is validAgent with a plan whose step is step (indented by six).
func planAgent(step string) string {
	return "name: t\ncommands:\n  - name: default\n    steps:\n" + step
}

// TestSchemaAgreesWithLint: on a table of agent files, agentgw lint and the
// agent schema agree: both accept the valid one and both reject each
// invalid one (lint with an error naming the problem).
func TestSchemaAgreesWithLint(t *testing.T) {
	s := compileSchemaFile(t, agentSchemaFile)
	tests := []struct {
		name, file string
		lint       string // in lint's output; "" for a valid file
	}{
		{"valid", validAgent, ""},
		{"valid plan", planAgent("      - id: a\n        reply: hi\n      - id: b\n        dependsOn: [a]\n        tool: \"\"\n        call: {command: other}\n") +
			"  - name: other\n    reply: x\n", ""},
		{"unknown field", validAgent + "nmae: x\n", `unknown field "nmae"`},
		{"unknown command field", strings.Replace(validAgent, "reply: hi", "reply: hi\n    replies: x", 1), `unknown field "replies"`},
		{"commands not a list", "name: t\ncommands: default\n", "expected a list"},
		{"name missing", "commands:\n  - name: default\n    reply: hi\n", "name is required"},
		{"agent name with a space", strings.Replace(validAgent, "name: t", "name: my agent", 1), "may hold only"},
		{"no default command", strings.Replace(validAgent, "name: default", "name: other", 1), `a "default" command is required`},
		{"command without a name", validAgent + "  - reply: x\n", "command: name is required"},
		{"role unknown", strings.Replace(validAgent, "reply: hi", "messageTemplates:\n      - role: sytem\n        template: x", 1), `role "sytem" must be`},
		{"template missing", strings.Replace(validAgent, "reply: hi", "messageTemplates:\n      - role: system", 1), "template is empty"},
		{"context variable without a name", strings.Replace(validAgent, "reply: hi", "reply: hi\n    contextVariableCollectionStrategy:\n      contextVariables:\n        - required: true", 1), "without a name"},
		{"reply a mapping", strings.Replace(validAgent, "reply: hi", "reply: {text: hi}", 1), "expected a string"},
		{"unknown step kind", planAgent("      - id: a\n        shout: hi\n"), `unknown field "shout"`},
		{"step without a kind", planAgent("      - id: a\n        output: x\n"), "a step needs one kind"},
		{"step with two kinds", planAgent("      - id: a\n        reply: hi\n        tool: t\n"), "a step has one kind"},
		{"step without an id", planAgent("      - reply: hi\n"), "empty id"},
		{"timeout without a unit", planAgent("      - id: a\n        reply: hi\n        timeout: 5\n"), "expected a duration"},
		{"negative timeout", planAgent("      - id: a\n        reply: hi\n        timeout: -5s\n"), "expected a duration"},
		{"onError unknown", planAgent("      - id: a\n        reply: hi\n        onError: retry\n"), `onError "retry" must be fail or continue`},
		{"retry limit negative", planAgent("      - id: a\n        reply: hi\n        retry: {limit: -1}\n"), "retry.limit must not be negative"},
		{"dependsOn and its alias", planAgent("      - id: a\n        reply: hi\n      - id: b\n        reply: hi\n        dependsOn: [a]\n        dependencies: [a]\n"), "given twice"},
		{"llm stream a string", planAgent("      - id: a\n        llm:\n          messages: [{role: user, template: hi}]\n          stream: \"yes\"\n"), "expected true or false"},
		{"llm format unknown", planAgent("      - id: a\n        llm:\n          messages: [{role: user, template: hi}]\n          format: yaml\n"), `llm.format "yaml" must be text or json`},
		{"git config not a mapping", planAgent("      - id: a\n        git: tree\n"), "expected a mapping"},
		{"git unknown field", planAgent("      - id: a\n        git: {op: tree, branch: main}\n"), `unknown field "branch"`},
		{"with not a mapping", planAgent("      - id: a\n        reply: hi\n        with: [x]\n"), "with: expected a mapping"},
		{"tool runtime unknown", validAgent + "tools:\n  - name: t\n    description: d\n    runtime: pyhton\n    entry: t.py\n", `runtime "pyhton": unknown`},
		{"tool runtime missing", validAgent + "tools:\n  - name: t\n    description: d\n    entry: t.py\n", "runtime: missing"},
		{"tool name with a space", validAgent + "tools:\n  - name: my tool\n    description: d\n    runtime: builtin\n", "must be 1 to 64"},
		{"tool permission unknown", validAgent + "tools:\n  - name: t\n    description: d\n    runtime: frontend\n    permissionLevel: MAYBE\n", "MAYBE"},
		{"tool field unknown", validAgent + "tools:\n  - name: t\n    runtime: frontend\n    entrypoint: x\n", `unknown field "entrypoint"`},
		{"handoff type unknown", validAgent + "handoffs:\n  - type: HELP\n", `"HELP" is not a hand-off type`},
		{"schedule field unknown", validAgent + "schedules:\n  - name: s\n    every: 1h\n    at: noon\n", `unknown field "at"`},
	}
	dir := t.TempDir()
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".yaml")
			if err := os.WriteFile(file, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runCLI(t, nil, "lint", file)
			serr := validateYAML(s, []byte(tc.file))
			if tc.lint == "" {
				if code != 0 || serr != nil {
					t.Errorf("case %d: want both to accept; lint exit %d:\n%s%s\nschema: %v", i, code, stdout, stderr, serr)
				}
				return
			}
			if code != 1 || !strings.Contains(stdout, tc.lint) {
				t.Errorf("lint: exit %d, want 1 and an error with %q:\n%s%s", code, tc.lint, stdout, stderr)
			}
			if serr == nil {
				t.Errorf("the schema accepts what lint rejects (%s)", tc.lint)
			}
		})
	}
}
