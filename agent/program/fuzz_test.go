package program

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse: the definition loader never panics on any file, and every
// diagnostic points inside the file.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"name: a\ncommands:\n  - name: default\n    reply: hi {{ .userInfo.name }}\n",
		`{"name":"happy","commands":[{"name":"default","messageTemplates":[{"role":"system","template":"x"}],"contextVariableCollectionStrategy":{"type":"specify","contextVariables":[{"name":"activeEdtior","resolveOptions":{}}]}}]}`,
		"name: a\ncommands:\n  - name: default\n    actions:\n      - action: tree\n        data: {treeId: t, rootPId: '0', nodes: [{id: a, pId: '0', type: x, name: n}], nodeActions: [{nodeType: x, nodeAction: click}]}\n",
		"---\n---\nname: [\n", "a: &x {b: *x}\n", "",
		"name: x\nt: {title: Proceed?, body: a: b}\n", "{\n \"a\": [ {\"b\": 1 \"c\": 2} ]\n}\n", "t: [\"a\",\r\n  'b' c]\r\n",
		"name: x\ncommands:\n  - name: default\n    reply: hi\n  reply2: hi\n", "a:\n  b: 1\n  - c\n", "a:\n\tb: 1\n",
		"a: 'x'\nb: 'it''s\n  c\n", "a: \"x\" \"y\nb: c\n", "a: [1, , 2]\n", "{\"a\": 1,,\n}", "a: *b\n", "a: b: c\r",
		"name: x\ndescription hello\n", "  a: 1\nb: 2\n", "a: {b: 1, b: 2}\nc: [{d: 1, d: 2}]\n", "a: |\n  x\n b\n", "a: \"\xc3\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		agents, diags := parseAll("f.yaml", data)
		// YAML also breaks lines at a lone \r.
		lines := strings.Count(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") + strings.Count(string(data), "\r") + 2
		for _, d := range diags {
			if d.Pos.Line > lines || d.Pos.Line < 0 {
				t.Fatalf("diagnostic outside the file: %s", d)
			}
			// A syntax error points at a character of the file (or its
			// first line when it is empty).
			if strings.HasPrefix(d.Message, "syntax error: ") && len(data) > 0 {
				if d.Pos.Line < 1 || d.Pos.Column < 1 || d.Pos.Line > fuzzLineCount(data) {
					t.Fatalf("syntax error outside the file: %s", d)
				}
				if ls, ok := fuzzLineStart(data, d.Pos.Line); !ok || ls >= len(data) || d.Pos.Column > 1+utf8.RuneCount(data[ls:]) {
					t.Fatalf("syntax error past the end of the file: %s", d)
				}
			}
		}
		for _, a := range agents {
			if _, ok := a.Commands[DefaultCommand]; !ok {
				t.Fatal("an agent without a default command loaded")
			}
			if _, err := a.ExportJSON("http://x"); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// fuzzLineCount and fuzzLineStart count lines as agent's syntax-error
// placement does (its lineCount and lineStart): '\n', or a '\r' not followed
// by '\n', ends a line; a last line without a break counts.
func fuzzLineCount(data []byte) int {
	n := 1
	for i := 0; i+1 < len(data); i++ {
		if fuzzLineBreak(data, i) {
			n++
		}
	}
	return n
}

func fuzzLineStart(data []byte, line int) (int, bool) {
	ls := 0
	for i := 0; i < len(data) && line > 1; i++ {
		if fuzzLineBreak(data, i) {
			line, ls = line-1, i+1
		}
	}
	return ls, line <= 1
}

func fuzzLineBreak(data []byte, i int) bool {
	return data[i] == '\n' || data[i] == '\r' && (i+1 == len(data) || data[i+1] != '\n')
}
