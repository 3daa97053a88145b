package runner

import (
	"strings"
	"testing"
)

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
		{"block collection, at the line where it starts (the library names no token)", "name: x\nlist:\n  - a\n  b: c\n",
			"f.yaml:3:1: syntax error: did not find expected '-' indicator"},
	} {
		_, diags := Parse("f.yaml", []byte(tt.src))
		if got := strings.TrimSpace(diags.String()); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}
