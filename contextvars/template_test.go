package contextvars

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"text/template"

	"github.com/agentgw/agentgw/internal/golden"
)

func TestTemplateData(t *testing.T) {
	s := mustDecode(t, `[
		{"name":"userInputPrompt","value":"q"},
		{"name":"knowledgeBase","value":[{"knowledgeBaseId":"k","references":[{"score":0.5,"chunk":"c",
			"metadata":{"fileName":"f","sourceType":"doc","source":"s","startPos":1}}]},{"knowledgeBaseId":"k2"}]},
		{"name":"activeEditor","value":{"filePath":"p","content":"ab","selectedRanges":[
			{"content":"a","startLine":1,"startColumn":1,"endLine":1,"endColumn":2,"contentAfterSelection":"b"},
			{"content":"b","startLine":1,"startColumn":2,"endLine":1,"endColumn":3}]}},
		{"name":"vcs","value":{"type":"git"}},
		{"name":"x","value":{"n":1}}]`)
	want := map[string]any{
		"userInputPrompt": "q",
		"knowledgeBase": []any{
			map[string]any{"knowledgeBaseId": "k", "references": []any{map[string]any{"score": 0.5, "chunk": "c",
				"metadata": map[string]any{"fileName": "f", "sourceType": "doc", "source": "s", "startPos": 1}}}},
			map[string]any{"knowledgeBaseId": "k2"},
		},
		"activeEditor": map[string]any{"filePath": "p", "language": "", "content": "ab", "cursorOffset": 0,
			"startLine": 0, "startColumn": 0, "endLine": 0, "endColumn": 0, "selectedText": "a\nb",
			"selectedRanges": []any{
				map[string]any{"content": "a", "startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 2, "contentAfterSelection": "b"},
				map[string]any{"content": "b", "startLine": 1, "startColumn": 2, "endLine": 1, "endColumn": 3},
			},
			"selection": map[string]any{"content": "a", "startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 2, "contentAfterSelection": "b"},
		},
		"vcs": map[string]any{"type": "git", "branchName": "", "upstreamBranchName": "", "remoteUrl": "", "remotes": []any{}},
		"x":   map[string]any{"n": 1.0},
	}
	if got := s.TemplateData(); !reflect.DeepEqual(got, want) {
		t.Errorf("TemplateData:\n got %#v\nwant %#v", got, want)
	}
	if got := (&Set{}).TemplateData(); len(got) != 0 {
		t.Errorf("empty set: %#v", got)
	}
	if got := (&Set{UserInputPrompt: "set by code"}).TemplateData(); got["userInputPrompt"] != "set by code" {
		t.Errorf("prompt set by code: %#v", got)
	}
}

func TestTemplateRenderGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/full.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := template.Must(template.New("t").Option("missingkey=zero").Parse(strings.TrimSpace(`
Hello {{.userInfo.nickname}} on {{.vcs.branchName}} ({{range .vcs.remotes}}{{.}} {{end}})
{{range .globalPrompts}}[{{.role}}] {{.content}}
{{end}}{{range .knowledgeBase}}kb {{.knowledgeBaseId}}:{{range .references}} {{.score}} {{.metadata.fileName}}{{with .metadata.startPos}}:{{.}}{{end}}{{end}}
{{end}}File {{.activeEditor.filePath}} ({{.activeEditor.language}}), selection {{.activeEditor.startLine}}:{{.activeEditor.startColumn}}
Selected: {{.activeEditor.selectedText}}
{{range .activeEditor.selectedRanges}}Before: {{printf "%q" .contentBeforeSelection}} After: {{printf "%q" .contentAfterSelection}}{{end}}
Visible from line {{.activeEditor.visibleRange.startLine}}
{{range .packageFiles}}{{.filepath}}: {{printf "%q" .content}}{{end}}
Ticket {{.ticket.id}} worth {{.ticket.points}}, tags {{index .ticket.tags 1}}
Q: {{.userInputPrompt}}`)))
	var b strings.Builder
	if err := tmpl.Execute(&b, s.TemplateData()); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/template.golden.txt", []byte(b.String()+"\n"))
}
