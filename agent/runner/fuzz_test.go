package runner

import (
	"strings"
	"testing"
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
		}
		for _, a := range agents {
			if _, ok := a.commands[DefaultCommand]; !ok {
				t.Fatal("an agent without a default command loaded")
			}
			if _, err := a.ExportJSON("http://x"); err != nil {
				t.Fatal(err)
			}
		}
	})
}
