package program

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/apierr"
)

// requestDef is a request-carried definition whose user template is src.
func requestDef(src string) []byte {
	q := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(src)
	return []byte(`{"commands":[{"name":"default","messageTemplates":[{"role":"system","template":"ok"},{"role":"user","template":"` + q + `"}]}]}`)
}

// TestRequestTemplateRefusals: a request-carried template that could loop
// or allocate without bound is refused when the definition compiles, with
// a BAD_REQUEST naming the command, the template and what is not allowed.
func TestRequestTemplateRefusals(t *testing.T) {
	tests := []struct{ src, want string }{
		{`{{ range 10000000 }}{{ end }}`, `range over an integer is not allowed`},
		{`{{ range $i := 10000000 }}{{ $i }}{{ end }}`, `range over an integer is not allowed`},
		{`{{ range len .userInputPrompt }}x{{ end }}`, `range over an integer (a length) is not allowed`},
		{`{{ range (len .userInputPrompt) }}x{{ end }}`, `range over an integer (a length) is not allowed`},
		{`{{ range .x | len }}x{{ end }}`, `range over an integer (a length) is not allowed`},
		{`{{ $n := 9 }}{{ range $n }}x{{ end }}`, `range over a variable is not allowed`},
		{`{{ range .a }}{{ range .b }}x{{ end }}{{ end }}`, `nested range is not allowed`},
		{`{{ printf "%999999999d" 1 }}`, `printf is not allowed`},
		{`{{ (printf "%999999999d" 1).x }}`, `printf is not allowed`},
		{`{{ print .userInputPrompt }}`, `print is not allowed`},
		{`{{ println .userInputPrompt }}`, `println is not allowed`},
		{`{{ js .userInputPrompt }}`, `js is not allowed`},
		{`{{ html .userInputPrompt }}`, `html is not allowed`},
		{`{{ urlquery .userInputPrompt }}`, `urlquery is not allowed`},
		{`{{ call .f }}`, `call is not allowed`},
		{`{{ define "x" }}{{ template "x" }}{{ end }}`, `define and block are not allowed`},
	}
	for _, tc := range tests {
		_, err := compileRequestDefinition(NewKinds(), "adhoc", requestDef(tc.src))
		var e *apierr.Error
		if !errors.As(err, &e) || e.Code != apierr.CodeBadRequest || e.Status != 400 {
			t.Errorf("%s: got %v, want a BAD_REQUEST", tc.src, err)
			continue
		}
		want := `agentDefinition: command "default": template default.messageTemplates[1]: ` + tc.want
		if !strings.HasPrefix(e.Message, want) {
			t.Errorf("%s: message %q, want it to start %q", tc.src, e.Message, want)
		}
	}
	for _, src := range []string{
		`{{ range .packageFiles }}{{ .filepath | upper }} {{ len .content }}{{ end }}`,
		`{{ range $f := .packageFiles }}{{ $f.filepath }}{{ end }}{{ range $.list }}x{{ end }}`,
		`{{ if eq (len .userInputPrompt) 0 }}{{ slice .x 1 }}{{ end }}{{ range lines .x }}{{ indent 2 . }}{{ end }}`,
	} {
		if _, err := compileRequestDefinition(NewKinds(), "adhoc", requestDef(src)); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
}

// TestInvalidDefinitionListsEveryProblem: each error of a request-carried
// definition is listed (up to maxListedProblems, the rest counted), each
// clipped on its own: the message was clipped as a whole at 256 bytes, so
// a long first problem hid the others.
func TestInvalidDefinitionListsEveryProblem(t *testing.T) {
	long := strings.Repeat("x", 2000)
	var cmds []string
	for i := range 12 {
		cmds = append(cmds, fmt.Sprintf(`{"name":"c%d","messageTemplates":[{"role":"system","template":"{{ .%s"}]}`, i, long))
	}
	_, err := compileRequestDefinition(NewKinds(), "adhoc", []byte(`{"commands":[{"name":"default","messageTemplates":[{"role":"system","template":"ok"}]},`+strings.Join(cmds, ",")+`]}`))
	var e *apierr.Error
	if !errors.As(err, &e) || e.Code != apierr.CodeBadRequest {
		t.Fatalf("got %v, want a BAD_REQUEST", err)
	}
	if n := strings.Count(e.Message, "line 1: "); n != maxListedProblems {
		t.Errorf("%d problems listed, want %d: %s", n, maxListedProblems, e.Message)
	}
	if !strings.HasSuffix(e.Message, " (and 2 more)") {
		t.Errorf("message does not count the rest: %s", e.Message)
	}
	if len(e.Message) > maxListedProblems*(apierr.MaxEcho+64)+64 {
		t.Errorf("message of %d bytes: each problem was not clipped", len(e.Message))
	}
}
