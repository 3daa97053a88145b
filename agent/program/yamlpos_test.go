package program

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/agent"
)

// maxPositionScan is agent's bound on the files whose syntax errors are
// placed by re-parsing their prefixes.
const maxPositionScan = 256 << 10

// TestYAMLSyntaxPositions: a YAML syntax error is reported at the line and
// column of the token that broke the file; in a flow collection the
// library alone said the line before the collection's start, no column.
func TestYAMLSyntaxPositions(t *testing.T) {
	const flowErr = "syntax error: did not find expected ',' or '}'"
	for _, tt := range []struct {
		name, src, want string
	}{
		{"flow mapping on one line", "name: x\ncommands:\n  - name: default\n    action: {title: Proceed?, body: a: b}\n",
			"f.yaml:4:38: " + flowErr},
		{"flow mapping over lines", "name: x\ncommands:\n  - name: default\n    action: {\n      title: Proceed?,\n      body: a: b\n    }\n",
			"f.yaml:6:14: " + flowErr},
		{"JSON file, the object from the first line", "{\n  \"name\": \"x\",\n  \"commands\": [ {\"name\": \"default\" \"reply\": \"x\"} ]\n}\n",
			"f.yaml:3:36: " + flowErr},
		{"flow sequence closed with a brace", "name: x\ntags: [a, b}\n",
			"f.yaml:2:12: syntax error: did not find expected ',' or ']'"},
		{"nested mapping, then a stray scalar", "name: x\nt: {a: [1, 2], b: {c: 1} d}\n",
			"f.yaml:2:26: " + flowErr},
		{"two quoted scalars", "name: x\nt: {a: \"x\" \"y\"}\n",
			"f.yaml:2:12: " + flowErr},
		{"flow sequence over lines", "name: x\nt: [\"a\",\n  'b' c]\n",
			"f.yaml:3:7: syntax error: did not find expected ',' or ']'"},
		{"comment and multi-byte text before", "name: x # é\nt: {é: \"{x\", # {\n  b: c: d}\n",
			"f.yaml:3:7: " + flowErr},
		{"flow sequence never closed: at its start", "name: x\nt: [a, {b: 1}\n",
			"f.yaml:2:4: syntax error: did not find expected ',' or ']'"},
		{"scanner error, at its line", "name: x\n\tc: 3\n",
			"f.yaml:2:1: syntax error: found a tab character that violates indentation"},
	} {
		_, diags := Parse("f.yaml", []byte(tt.src))
		if got := strings.TrimSpace(diags.String()); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// TestYAMLBlockSyntaxPositions: an error in a block collection (and every
// other syntax error the library places only by its context) is reported
// at the offending token's line and column, not at the line where the
// collection around it starts (the library's line, which is all the code
// as found reported, with column 1).
func TestYAMLBlockSyntaxPositions(t *testing.T) {
	const head = "name: x\ncommands:\n  - name: default\n"
	for _, tt := range []struct {
		name, src, want string
	}{
		{"key indented less than its mapping, inside a list",
			head + "    reply: hi\n   actions: []\n",
			"f.yaml:5:4: syntax error: did not find expected '-' indicator"},
		{"key at the list's indentation",
			head + "    reply: hi\n  reply2: hi\n",
			"f.yaml:5:3: syntax error: did not find expected '-' indicator"},
		{"quoted key at the list's indentation",
			head + "    reply: hi\n  \"reply\": hi\n",
			"f.yaml:5:3: syntax error: did not find expected '-' indicator"},
		{"list item at a mapping's indentation",
			head + "    reply: hi\n    - item\n",
			"f.yaml:5:5: syntax error: did not find expected key"},
		{"list item indented less than its list",
			"name: x\ncommands:\n- name: default\n  reply: hi\n - name: b\n",
			"f.yaml:5:2: syntax error: did not find expected key"},
		{"key indented more than its mapping: the ':' is not allowed",
			head + "     reply: hi\n",
			"f.yaml:4:11: syntax error: mapping values are not allowed in this context"},
		{"item's next key indented too deep",
			head + "    reply: hi\n  - name: b\n      reply: c\n",
			"f.yaml:6:12: syntax error: mapping values are not allowed in this context"},
		{"value holding ': '",
			head + "    reply: Note: be brief\n",
			"f.yaml:4:16: syntax error: mapping values are not allowed in this context"},
		{"tab as indentation",
			head + "\treply: hi\n",
			"f.yaml:4:1: syntax error: found a tab character that violates indentation"},
		{"tab after spaces in indentation",
			head + "    \treply: hi\n",
			"f.yaml:4:5: syntax error: found a tab character that violates indentation"},
		{"missing ':' after a key",
			"name: x\ndescription hello\ncommands: []\n",
			"f.yaml:2:1: syntax error: could not find expected ':'"},
		{"missing ':' after a nested key",
			head + "    reply hi\n    actions: []\n",
			"f.yaml:4:5: syntax error: could not find expected ':'"},
		{"block scalar's text indented less than its key",
			head + "    reply: |\n  hi\n",
			"f.yaml:5:3: syntax error: could not find expected ':'"},
		{"double-quoted scalar never closed, over lines",
			head + "    reply: \"hi\n      there\n    actions: []\n",
			"f.yaml:4:12: syntax error: found unexpected end of stream"},
		{"single-quoted scalar never closed, after a closed one",
			head + "    reply: 'hi'\n    description: 'it''s\n      there\n",
			"f.yaml:5:18: syntax error: found unexpected end of stream"},
		{"bad escape in a double-quoted scalar",
			head + "    reply: \"C:\\dir\"\n",
			"f.yaml:4:15: syntax error: found unknown escape character"},
		{"stray closing bracket after a flow list",
			head + "    reply: [a, b]]\n",
			"f.yaml:4:18: syntax error: did not find expected key"},
		{"unknown alias",
			head + "    reply: *greeting\n",
			"f.yaml:4:12: syntax error: unknown anchor 'greeting' referenced"},
		{"character that cannot start a token",
			head + "    reply: hi\n    description: @me\n",
			"f.yaml:5:18: syntax error: found character that cannot start any token"},
		{"first document indented, then a key at column 1",
			"  name: x\n  commands: [{name: default, reply: hi}]\nother: y\n",
			"f.yaml:3:1: syntax error: did not find expected <document start>"},
		{"multi-byte text before the error",
			"name: x\ndescription: héllo wörld\ncommands:\n  - name: default\n    reply: ça va\n   actions: []\n",
			"f.yaml:6:4: syntax error: did not find expected '-' indicator"},
		{"CRLF line ends",
			"name: x\r\ncommands:\r\n  - name: default\r\n    reply: hi\r\n    - item\r\n",
			"f.yaml:5:5: syntax error: did not find expected key"},
		{"error in the second document",
			"name: a\ncommands: [{name: default, reply: hi}]\n---\nname: b\ncommands:\n  - name: default\n    reply: hi\n  x: y\n",
			"f.yaml:8:3: syntax error: did not find expected '-' indicator"},
		{"JSON: doubled comma",
			"{\n  \"name\": \"x\",\n  \"commands\": [\n    {\"name\": \"default\",\n     \"reply\": \"x\",,\n    }\n  ]\n}\n",
			"f.yaml:5:19: syntax error: did not find expected node content"},
		{"JSON: value missing before a bracket",
			"{\n  \"name\": \"x\",\n  \"commands\": [{\"name\": \"default\", \"reply\": ]}\n}\n",
			"f.yaml:3:45: syntax error: did not find expected node content"},
		{"JSON: string never closed",
			"{\n  \"name\": \"x\",\n  \"commands\": [{\"name\": \"default\", \"reply\": \"x}]\n}\n",
			"f.yaml:3:45: syntax error: found unexpected end of stream"},
		{"JSON: one closing brace too many",
			"{\n  \"name\": \"x\",\n  \"commands\": [{\"name\": \"default\", \"reply\": \"x\"}]\n}\n}\n",
			"f.yaml:5:1: syntax error: did not find expected <document start>"},
		{"JSON: missing comma between members",
			"{\n  \"name\": \"x\"\n  \"commands\": []\n}\n",
			"f.yaml:3:3: syntax error: did not find expected ',' or '}'"},
		{"JSON: missing comma in a nested object",
			"{\n  \"name\": \"x\",\n  \"commands\": [\n    {\"name\": \"default\"\n     \"reply\": \"x\"\n    }\n  ]\n}\n",
			"f.yaml:5:6: syntax error: did not find expected ',' or '}'"},
		{"JSON: missing ':'",
			"{\n  \"name\" \"x\",\n  \"commands\": []\n}\n",
			"f.yaml:2:10: syntax error: did not find expected ',' or '}'"},
	} {
		_, diags := Parse("f.yaml", []byte(tt.src))
		if got := strings.TrimSpace(diags.String()); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// TestYAMLTrailingCommaJSON: a trailing comma in a JSON agent file is no
// error: the file is read as YAML, whose flow collections allow one.
func TestYAMLTrailingCommaJSON(t *testing.T) {
	src := "{\n  \"name\": \"x\",\n  \"commands\": [\n    {\"name\": \"default\", \"reply\": \"x\",},\n  ],\n}\n"
	agents, diags := Parse("f.json", []byte(src))
	if len(diags) != 0 || len(agents) != 1 {
		t.Fatalf("agents %d, diagnostics:\n%s", len(agents), diags)
	}
}

// TestYAMLDuplicateKeys: a key given twice is reported at the second one,
// in a definition's fields and in free-shape values alike; the code as
// found reported it at the mapping's start (resolver options, model
// parameters) or not at all (action data, which then read as nothing).
func TestYAMLDuplicateKeys(t *testing.T) {
	const head = "name: x\ncommands:\n  - name: default\n"
	for _, tt := range []struct {
		name, src, want string
	}{
		{"field", "name: x\nname: y\ncommands: [{name: default, reply: hi}]\n",
			`f.yaml:2:1: agent: field "name" given twice (also as "name")`},
		{"action data, flow", head + "    actions:\n      - action: confirm\n        data: {title: a, title: b}\n",
			`f.yaml:6:26: agent.commands[0].actions[0].data: key "title" given twice (first at 6:16)`},
		{"model parameters", head + "    reply: hi\n    modelConfiguration:\n      parameters:\n        temperature: 1\n        temperature: 2\n",
			`f.yaml:8:9: agent.commands[0].modelConfiguration.parameters: key "temperature" given twice (first at 7:9)`},
		{"resolver options, nested", head + "    reply: hi\n    contextVariableCollectionStrategy:\n      contextVariables:\n        - name: selectedText\n          resolverOptions:\n            a: {b: 1, c: 2, b: 3}\n",
			`f.yaml:9:29: agent.commands[0].contextVariableCollectionStrategy.contextVariables[0].resolverOptions.a: key "b" given twice (first at 9:17)`},
	} {
		_, diags := Parse("f.yaml", []byte(tt.src))
		var errs []string
		for _, d := range diags {
			if d.Severity == agent.SeverityError {
				errs = append(errs, d.String())
			}
		}
		if got := strings.Join(errs, "\n"); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// bigAgentFile is an agent file of about size bytes (many commands) whose
// last line breaks its block list.
func bigAgentFile(size int) []byte {
	var b strings.Builder
	b.WriteString("name: big\ncommands:\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "  - name: c%d\n    reply: hello {{ .userInput }} number %d\n", i, i)
	}
	b.WriteString("  stray: key\n")
	return []byte(b.String())
}

// TestYAMLSyntaxPosBigFile: above maxPositionScan the library's line is
// kept (the start of the list), with column 1; below, the token.
func TestYAMLSyntaxPosBigFile(t *testing.T) {
	for _, tt := range []struct {
		size int
		want func(lines int) string
	}{
		{64 << 10, func(lines int) string { return fmt.Sprintf("f.yaml:%d:3:", lines) }},
		{maxPositionScan + 1, func(int) string { return "f.yaml:3:1:" }},
	} {
		data := bigAgentFile(tt.size)
		_, diags := Parse("f.yaml", data)
		want := tt.want(strings.Count(string(data), "\n")) + " syntax error: did not find expected '-' indicator"
		if got := strings.TrimSpace(diags.String()); got != want {
			t.Errorf("%d bytes: got %s, want %s", len(data), got, want)
		}
	}
}

// BenchmarkYAMLSyntaxPos places a block error at the end of a 240 KiB
// file: a few dozen parses of prefixes, not one per line.
func BenchmarkYAMLSyntaxPos(b *testing.B) {
	data := bigAgentFile(240 << 10)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		Parse("f.yaml", data)
	}
}
