package tmpl

import (
	"context"
	"strings"
	"testing"
)

func TestTemplateRender(t *testing.T) {
	data := map[string]any{
		"userInputPrompt": "why?",
		"activeEditor": map[string]any{
			"filePath": "/src/main.go", "language": "go",
			"selectedText":   "x := 1\ny := \"```\"",
			"selectedRanges": []any{map[string]any{"content": "x := 1"}},
		},
		"list": []any{"a", "b"},
		"text": "1\n2\n3\n4\n",
	}
	tests := []struct{ name, src, want string }{
		{"plain field", "{{.userInputPrompt}}", "why?"},
		{"missing top-level", "[{{.nothing}}]", "[]"},
		{"missing nested", "[{{.vcs.branchName}}]", "[]"},
		{"missing deep", "[{{.activeEditor.nothing.deeper}}]", "[]"},
		{"if missing", "{{if .vcs}}yes{{else}}no{{end}}", "no"},
		{"range missing", "{{range .knowledgeBase}}x{{end}}.", "."},
		{"with missing", "{{with .vcs}}{{.branchName}}{{else}}none{{end}}", "none"},
		{"or fallback", `{{or .missing .userInputPrompt}}`, "why?"},
		{"and gate", `{{and .userInputPrompt .activeEditor.language}}`, "go"},
		{"default", `{{.missing | default "n/a"}}`, "n/a"},
		{"default present", `{{.userInputPrompt | default "n/a"}}`, "why?"},
		{"trim upper", `{{"  hi " | trim | upper}}`, "HI"},
		{"indent", `{{indent 2 "a\n\nb"}}`, "  a\n\n  b"},
		{"join", `{{join ", " .list}}`, "a, b"},
		{"join missing", `[{{join ", " .missing}}]`, "[]"},
		{"json", `{{json .list}}`, `["a","b"]`},
		{"head", `{{head 2 .text}}`, "1\n2"},
		{"tail", `{{tail 2 .text}}`, "3\n4"},
		{"head more than there is", `{{head 10 .text}}`, "1\n2\n3\n4"},
		{"fence picks longer", `{{fence .activeEditor.language .activeEditor.selectedText}}`, "````go\nx := 1\ny := \"```\"\n````"},
		{"fence short", `{{fence "" "a"}}`, "```\na\n```"},
		{"index selected range", `{{(index .activeEditor.selectedRanges 0).content}}`, "x := 1"},
		{"variable decl prints nothing", `{{$x := .userInputPrompt}}<{{$x}}>`, "<why?>"},
		{"truncate", `{{truncate 3 "abcdef"}}`, "abc…"},
		{"basename", `{{basename .activeEditor.filePath}}`, "main.go"},
		{"contains", `{{if contains "main" .activeEditor.filePath}}y{{end}}`, "y"},
		{"define block", `{{define "x"}}[{{.missing}}]{{end}}{{template "x" .}}`, "[]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tpl, err := parseTemplate(tc.name, tc.src)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Execute(context.Background(), tpl, data)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTemplateMentions(t *testing.T) {
	tests := []struct {
		src  string
		want bool
	}{
		{"{{.userInputPrompt}}", true},
		{"{{ if .userInputPrompt }}x{{ end }}", true},
		{`{{ index . "userInputPrompt" }}`, true},
		{"{{ .userInputPrompt | trim }}", true},
		{"{{ .activeEditor.content }}", false},
		{"userInputPrompt as plain text", false},
		{"{{ with .userInputPrompt }}{{ . }}{{ end }}", true},
	}
	for _, tc := range tests {
		tpl, err := parseTemplate("t", tc.src)
		if err != nil {
			t.Fatal(err)
		}
		if got := Mentions(tpl, "userInputPrompt"); got != tc.want {
			t.Errorf("mentions(%q) = %v, want %v", tc.src, got, tc.want)
		}
	}
}

func TestTemplateParseError(t *testing.T) {
	_, err := parseTemplate("bad", "{{ .x | nosuchfunc }}")
	if err == nil || !strings.Contains(err.Error(), "nosuchfunc") {
		t.Fatalf("want a parse error naming the function, got %v", err)
	}
}

func TestCheckRestricted(t *testing.T) {
	tests := []struct {
		src, err string
	}{
		{`{{ .userInputPrompt | trim }} {{ range .packageFiles }}{{ .filepath }}{{ end }}`, ""},
		{`{{ if .a }}{{ range .b }}x{{ end }}{{ end }}{{ range .c }}y{{ end }}`, ""},
		{`{{ define "x" }}{{ template "x" . }}{{ end }}{{ template "x" . }}`, "define"},
		{`{{ template "y" }}`, "template calls"},
		{`{{ printf "%0999999999d" 1 }}`, "printf"},
		{`{{ .x | printf "%s" }}`, "printf"},
		{`{{ range .a }}{{ range .b }}x{{ end }}{{ end }}`, "nested range"},
		{`{{ range .a }}{{ with .b }}{{ range . }}x{{ end }}{{ end }}{{ end }}`, "nested range"},
	}
	for _, tc := range tests {
		tpl, err := parseTemplate("t", tc.src)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckRestricted(tpl)
		if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("checkRestricted(%q) = %v, want %q", tc.src, err, tc.err)
		}
	}
}

func TestRenderCap(t *testing.T) {
	tpl, err := parseTemplate("t", `{{ range .n }}{{ $.s }}{{ end }}`)
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 1<<20)
	_, err = Execute(context.Background(), tpl, map[string]any{"n": make([]int, 100), "s": big})
	if err == nil || !strings.Contains(err.Error(), "MiB") {
		t.Fatalf("want the render cap, got %v", err)
	}
}

// fenceRef is fence as first written: a byte-by-byte count of the longest
// backtick run.
func fenceRef(lang, text string) string {
	longest, run := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + lang + "\n" + strings.TrimSuffix(text, "\n") + "\n" + f
}

// FuzzFence checks fence against fenceRef.
func FuzzFence(f *testing.F) {
	for _, s := range []string{"", "a", "`", "a``b", "```", "x````\n", "``a```b`", "\n", "`````"} {
		f.Add("go", s)
	}
	f.Fuzz(func(t *testing.T, lang, text string) {
		got, err := fence(newBudget(context.Background()), lang, text)
		if want := fenceRef(lang, text); err != nil || got != want {
			t.Fatalf("fence(%q, %q) = %q, want %q", lang, text, got, want)
		}
	})
}
