package tmpl

import (
	"context"
	"strings"
	"testing"
)

// benchTemplates are the prompt templates of bench/agents/bench.yaml (the
// relay benchmark's agent) and of configs/agents/coder.yaml.
var benchTemplates = []struct{ name, src string }{
	{"bench_system", "You are a senior software engineer helping a colleague inside their IDE.\n" +
		"Answer concisely and show code in fenced blocks.\n" +
		"The open file is {{ .activeEditor.filePath }} ({{ .activeEditor.language }})."},
	{"bench_user", "Review this {{ .activeEditor.language }} from {{ .activeEditor.filePath | basename }}:\n" +
		"{{ fence .activeEditor.language .activeEditor.selectedText }}\n" +
		"{{- with .activeEditor.selection.contentBeforeSelection }}\nIt follows:\n{{ fence $.activeEditor.language . }}\n{{- end }}\n" +
		"{{- with .activeEditor.selection.contentAfterSelection }}\nIt is followed by:\n{{ fence $.activeEditor.language . }}\n{{- end }}\n" +
		"{{- with .userInputPrompt }}\nFocus: {{ . }}\n{{- end }}"},
	{"coder_system", "You are a coding assistant.\n" +
		"{{- with .activeEditor }}\nThe open file is {{ .filePath }} ({{ .language }}).\n{{- end }}\n" +
		"{{- with .vcs }}\nThe workspace is on git branch {{ .branchName }}.\n{{- end }}"},
	{"coder_explain", "Explain this {{ .activeEditor.language | default \"code\" }} from {{ .activeEditor.filePath | basename }}:\n" +
		"{{ fence .activeEditor.language (.activeEditor.selectedText | default .activeEditor.content) }}\n" +
		"{{- with .activeEditor.selection.contentBeforeSelection }}\nIt follows:\n{{ fence $.activeEditor.language . }}\n{{- end }}\n" +
		"{{- with .userInputPrompt }}\n\nThe user asks: {{ . }}\n{{- end }}"},
	{"coder_package", "{{- with .packageFiles }}\nOther files of the package:\n{{- range . }}\n{{ .filepath }}:\n" +
		"{{ fence \"\" (head 40 .content) }}\n{{- end }}\n{{- end }}"},
}

// benchPromptData is an IDE request's template data: a 2 KiB Go file with
// a selection and its surroundings, a prompt, a branch and three package
// files, served field by field as the runner serves it.
func benchPromptData() mapFields {
	line := "\tfmt.Printf(\"%d: %s\\n\", i, strings.Repeat(\"x\", i)) // a \"typical\" line\n"
	content := strings.Repeat(line, 2048/len(line)+1)
	var files []any
	for _, n := range []string{"a.go", "b.go", "c.go"} {
		files = append(files, map[string]any{"filepath": "/src/" + n, "content": content})
	}
	return mapFields{map[string]any{
		"userInputPrompt": "What does this do?",
		"vcs":             map[string]any{"branchName": "main"},
		"packageFiles":    files,
		"activeEditor": map[string]any{
			"filePath": "/src/big.go", "language": "go", "content": content, "startLine": 14,
			"selectedText": line + line,
			"selection": map[string]any{"content": line + line,
				"contentBeforeSelection": strings.Repeat(line, 5), "contentAfterSelection": strings.Repeat(line, 5)},
		},
	}}
}

// BenchmarkExecuteWays renders the configs' templates with the fast
// evaluator and with text/template (the same template with its fast form
// dropped), over the same data.
func BenchmarkExecuteWays(b *testing.B) {
	data := benchPromptData()
	for _, bt := range benchTemplates {
		fast, err := parseTemplate(bt.name, bt.src)
		if err != nil {
			b.Fatal(err)
		}
		if fast.fast == nil {
			b.Fatalf("%s: not in the fast subset", bt.name)
		}
		slow, err := parseTemplate(bt.name, bt.src)
		if err != nil {
			b.Fatal(err)
		}
		slow.fast = nil
		want, err := Execute(context.Background(), fast, data)
		if err != nil {
			b.Fatal(err)
		}
		if got, err := Execute(context.Background(), slow, data); err != nil || got != want {
			b.Fatalf("%s: text/template rendered %q (%v), fast %q", bt.name, got, err, want)
		}
		for _, way := range []struct {
			name string
			t    *Template
		}{{"fast", fast}, {"text_template", slow}} {
			b.Run(bt.name+"/"+way.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Execute(context.Background(), way.t, data); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
