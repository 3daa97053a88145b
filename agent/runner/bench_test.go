package runner

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/request"
	"github.com/agentgw/agentgw/sse"
)

const benchAgent = `
name: bench
commands:
  - name: default
    messageTemplates:
      - role: system
        template: "You help with {{ .activeEditor.filePath }} ({{ .activeEditor.language }})."
      - role: user
        template: "{{ fence .activeEditor.language .activeEditor.selectedText }}\n{{ .userInputPrompt }}"
    contextVariableCollectionStrategy:
      contextVariables:
        - name: activeEditor
          resolverOptions: {contentBeforeSelectionLines: 5, contentAfterSelectionLines: 5}
`

// benchBody is an agent request whose activeEditor holds about size bytes
// of Go source (with the quotes, tabs and newlines that JSON escapes).
func benchBody(b *testing.B, size int) []byte {
	b.Helper()
	line := "\tfmt.Printf(\"%d: %s\\n\", i, strings.Repeat(\"x\", i)) // a \"typical\" line\n"
	var src strings.Builder
	for src.Len() < size {
		src.WriteString(line)
	}
	content := src.String()
	mid := strings.Count(content, "\n") / 2
	editor := map[string]any{
		"filePath": "/src/big.go", "language": "go", "content": content, "cursorOffset": 0,
		"startLine": mid, "startColumn": 1, "endLine": mid + 2, "endColumn": 1,
		"selectedRanges": []any{map[string]any{"content": line + line, "startLine": mid, "startColumn": 1, "endLine": mid + 2, "endColumn": 1}},
	}
	body, err := json.Marshal(map[string]any{
		"agent": "bench", "temperature": 0.2,
		"contextVariables": []any{
			map[string]any{"name": "activeEditor", "value": editor},
			map[string]any{"name": "userInputPrompt", "value": "What does this do?"},
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// BenchmarkDecodeRequest8MiB decodes an agent request carrying an 8 MiB
// activeEditor.
func BenchmarkDecodeRequest8MiB(b *testing.B) {
	body := benchBody(b, 8<<20)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := request.Decode(body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRequest8MiB is the whole pre-upstream cost of an 8 MiB request:
// decode, resolve and re-apply the resolver options, render the prompt.
func BenchmarkRequest8MiB(b *testing.B) {
	benchRequest(b, 8<<20)
}

// BenchmarkRequest2KiB is the same for a typical 2 KiB file.
func BenchmarkRequest2KiB(b *testing.B) {
	benchRequest(b, 2<<10)
}

func benchRequest(b *testing.B, size int) {
	agents, diags := parseAll("bench.yaml", []byte(benchAgent))
	if diags.Errors() > 0 {
		b.Fatal(diags)
	}
	r := NewRunner(program.NewRegistry(agents), RunnerConfig{})
	body := benchBody(b, size)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		req, err := request.Decode(body)
		if err != nil {
			b.Fatal(err)
		}
		run, err := r.Prepare(req)
		if err != nil {
			b.Fatal(err)
		}
		msgs, err := run.buildPrompt(context.Background())
		if err != nil || len(msgs) != 2 {
			b.Fatal(err, len(msgs))
		}
	}
}

// BenchmarkRenderPrompt renders the prompt of a prepared 2 KiB request.
func BenchmarkRenderPrompt(b *testing.B) {
	agents, _ := parseAll("bench.yaml", []byte(benchAgent))
	r := NewRunner(program.NewRegistry(agents), RunnerConfig{})
	req, err := request.Decode(benchBody(b, 2<<10))
	if err != nil {
		b.Fatal(err)
	}
	run, err := r.Prepare(req)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := run.renderPrompt(context.Background(), run.templateData(run.req.Context.TemplateData())); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkActionFrame writes one signed confirm action as an SSE frame.
func BenchmarkActionFrame(b *testing.B) {
	em := emit.NewSSEEmitter(sse.NewWriter(io.Discard, sse.Options{ID: "chatcmpl-1", Model: "m"}), "req-1")
	signer := actions.NewSigner([]byte("secret"), 0)
	state, err := signer.Sign(actions.Claims{Agent: "hello", Command: "default", Kind: actions.KindConfirm})
	if err != nil {
		b.Fatal(err)
	}
	a := &actions.Action{Kind: actions.KindConfirm, State: state,
		Confirm: &actions.Confirm{Title: "Get version", Message: "Shows the version of agent hello", Command: "version"}}
	b.ReportAllocs()
	for b.Loop() {
		if err := em.Action(a); err != nil {
			b.Fatal(err)
		}
	}
}
