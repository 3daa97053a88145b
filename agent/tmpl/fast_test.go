package tmpl

import (
	"context"
	"strings"
	"testing"
)

// fastData is rich template data for comparing the two evaluators.
func fastData() map[string]any {
	return map[string]any{
		"userInputPrompt": "why?",
		"empty":           "",
		"n":               3,
		"zero":            0,
		"f":               0.5,
		"yes":             true,
		"no":              false,
		"nothing":         nil,
		"list":            []any{"a", "b", map[string]any{"k": "v"}},
		"strs":            []string{"x", "y"},
		"none":            []any{},
		"m":               map[string]any{"b": 2, "a": 1, "c": map[string]any{"d": "deep"}},
		"activeEditor": map[string]any{
			"filePath": "/src/main.go", "language": "go", "content": "package main\n\nfunc main() {}\n",
			"selectedText": "func main() {}", "startLine": 3,
			"selectedRanges": []any{map[string]any{"content": "func main() {}", "startLine": 3}},
			"selection":      map[string]any{"content": "func main() {}", "contentBeforeSelection": "package main\n\n"},
		},
	}
}

// mapFields serves a map field by field (contextvars.Fields), its map
// values as mapFields again, as promptData and the lazy editor data do.
type mapFields struct{ m map[string]any }

func (f mapFields) Field(name string) (any, bool) {
	v, ok := f.m[name]
	if sub, isMap := v.(map[string]any); isMap {
		return mapFields{sub}, ok
	}
	return v, ok
}

func (f mapFields) Map() map[string]any { return f.m }

var fastSeeds = []string{
	"plain text",
	"{{ .userInputPrompt }}", "{{ .missing }}", "{{ .missing.deeper.still }}", "[{{ .nothing }}]",
	"{{ .n }} {{ .f }} {{ .yes }} {{ .list }} {{ .strs }} {{ .m }} {{ . }}",
	"{{ .activeEditor.filePath | basename }}", "{{ .missing | trim | upper }}",
	`{{ fence .activeEditor.language .activeEditor.selectedText }}`,
	`{{ .missing | default "none" }}`, `{{ default "d" .userInputPrompt }}`,
	"{{ if .activeEditor }}{{ .activeEditor.language }}{{ else }}none{{ end }}",
	"{{ if .empty }}a{{ else if .n }}b{{ else }}c{{ end }}",
	"{{ with .activeEditor.selection.contentBeforeSelection }}[{{ . }}]{{ end }}",
	"{{ with .missing }}x{{ else with .m }}{{ .a }}{{ end }}",
	"{{ range .list }}<{{ . }}>{{ end }}", "{{ range .none }}x{{ else }}empty{{ end }}",
	"{{ range .m }}{{ . }},{{ end }}", "{{ range .strs }}{{ $.userInputPrompt }}{{ . }}{{ end }}",
	"{{ range .missing }}x{{ else }}nothing{{ end }}", "{{ range .userInputPrompt }}x{{ end }}",
	"{{ and .userInputPrompt .n }} {{ or .empty .zero .no }} {{ or .missing .userInputPrompt }} {{ and .yes .missing }}",
	"{{ not .empty }} {{ not .missing }} {{ len .list }} {{ len .userInputPrompt }} {{ len .m }}",
	`{{ index .list 1 }} {{ index .m "a" }} {{ index .m "zz" }} {{ (index .activeEditor.selectedRanges 0).content }}`,
	"{{ index .list 9 }}", `{{ eq .userInputPrompt "why?" }} {{ ne .n 3 }} {{ eq .n .userInputPrompt }}`,
	"{{ .userInputPrompt.x }}", "{{ .nothing.x }}", "{{ .n | upper }}", "{{ indent 2 .activeEditor.content }}",
	`{{ join ", " .strs }} {{ join "-" .list }} {{ json .m }} {{ head 1 .activeEditor.content }} {{ tail 1 .activeEditor.content }}`,
	`{{ range lines .activeEditor.content }}|{{ . }}{{ end }}`, `{{ truncate 3 .userInputPrompt }} {{ contains "main" .activeEditor.filePath }}`,
	`{{ replace "a" "b" "banana" }}`, "{{ trim }}", "{{ indent .f .userInputPrompt }}", "{{- .userInputPrompt -}}  ",
	`{{ printf "%s" .userInputPrompt }}`, "{{ $x := .n }}{{ $x }}", `{{ define "a" }}x{{ end }}{{ template "a" }}`,
	"{{ .list.x }}", "{{ .m.c.d }}", "{{ $.m.c }}", "{{ (.m).a }}", "{{ 1 }} {{ true }} {{ \"s\" }}",
	"{{ .n .n }}", "{{ .userInputPrompt | .n }}", "{{ and }}", "{{ or .missing }}", "{{ not 1 2 }}",
	"{{ range 3 }}<{{ . }}>{{ end }}", "{{ range 0 }}x{{ else }}none{{ end }}", "{{ range -2 }}x{{ else }}neg{{ end }}",
	"{{ range .n }}{{ . }}{{ end }}", "{{ range len .strs }}{{ index $.strs . }}{{ end }}",
}

// FuzzFastTemplate: whenever the fast evaluator renders a template without
// error, text/template renders exactly the same text, also without error.
func FuzzFastTemplate(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add(s)
	}
	data := fastData()
	f.Fuzz(func(t *testing.T, src string) {
		tp, err := parseTemplate("f", src)
		if err != nil || tp.fast == nil {
			return
		}
		got, ferr := tp.fast.execute(newBudget(context.Background()), data)
		// The same data read field by field renders the same, or falls
		// back the same way.
		if lazy, lerr := tp.fast.execute(newBudget(context.Background()), mapFields{data}); (lerr == nil) != (ferr == nil) || lazy != got {
			t.Fatalf("%q: over maps %q (%v), field by field %q (%v)", src, got, ferr, lazy, lerr)
		}
		if ferr != nil {
			return // execute falls back to text/template
		}
		b := newCappedBuffer(newBudget(context.Background()), 0)
		if err := tp.Execute(&b, data); err != nil {
			t.Fatalf("%q: fast path rendered %q, text/template failed: %v", src, got, err)
		}
		if b.String() != got {
			t.Fatalf("%q: fast %q, text/template %q", src, got, b.String())
		}
	})
}

func TestFastTemplateMissingIntoHelpers(t *testing.T) {
	for src, want := range map[string]string{
		"[{{ .missing | trim }}]":      "[]",
		"[{{ .missing | basename }}]":  "[]",
		"[{{ .missing | upper }}]":     "[]",
		"[{{ fence \"\" .missing }}]":  "[```\n\n```]",
		"[{{ join \",\" .missing }}]":  "[]",
		"[{{ head 2 .missing }}]":      "[]",
		"[{{ .missing | default 7 }}]": "[7]",
	} {
		tp, err := parseTemplate("t", src)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Execute(context.Background(), tp, fastData())
		if err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", src, got, err, want)
		}
	}
	tp, _ := parseTemplate("t", "{{ indent 2 }}")
	if _, err := Execute(context.Background(), tp, fastData()); err == nil || !strings.Contains(err.Error(), "indent takes 2 arguments") {
		t.Errorf("arity error: %v", err)
	}
}
