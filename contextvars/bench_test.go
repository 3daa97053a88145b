package contextvars

import (
	"encoding/json"
	"strings"
	"testing"
)

// bigRequest returns a contextVariables list whose activeEditor.content is
// about size bytes of code-like text (with escapes and some non-ASCII).
func bigRequest(tb testing.TB, size int) []byte {
	tb.Helper()
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		b.WriteString("\tif err := doSomething(ctx, \"value\", i); err != nil { // 注释 comment\n")
	}
	content := b.String()
	sel := "selected text"
	vars := []map[string]any{
		{"name": "userInputPrompt", "value": "explain this"},
		{"name": "activeEditor", "value": map[string]any{
			"filePath": "/src/main.go", "language": "go", "content": content, "cursorOffset": 10,
			"startLine": 100, "startColumn": 1, "endLine": 101, "endColumn": 5,
			"selectedRanges": []any{map[string]any{"content": sel, "startLine": 100, "startColumn": 1,
				"endLine": 101, "endColumn": 5}},
			"visibleRange": map[string]any{"content": content[:min(4000, len(content))], "startLine": 80, "startColumn": 1,
				"endLine": 120, "endColumn": 1},
		}},
	}
	data, err := json.Marshal(vars)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

func BenchmarkDecode8MiB(b *testing.B) {
	data := bigRequest(b, 8<<20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecode8MiBStdlib is the baseline: encoding/json into the same types.
func BenchmarkDecode8MiBStdlib(b *testing.B) {
	data := bigRequest(b, 8<<20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var list []struct {
			Name  string
			Value json.RawMessage
		}
		if err := json.Unmarshal(data, &list); err != nil {
			b.Fatal(err)
		}
		var e Editor
		if err := json.Unmarshal(list[1].Value, &e); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkApply8MiB(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 8<<20 {
		sb.WriteString("\tif err := doSomething(ctx, \"value\", i); err != nil { // 注释 comment\n")
	}
	content := sb.String()
	lines := strings.Count(content, "\n")
	o := Options{ContentBeforeSelectionLines: ptr(20), ContentAfterSelectionLines: ptr(20)}
	e := &Editor{Content: content}
	s := &Set{ActiveEditor: e}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		e.SelectedRanges = []Range{{StartLine: lines / 2, StartColumn: 5, EndLine: lines/2 + 3, EndColumn: 9}}
		s.Apply(NameActiveEditor, o)
	}
	if r := e.SelectedRanges[0]; strings.Count(*r.ContentBeforeSelection, "\n") != 20 {
		b.Fatalf("before has %d lines", strings.Count(*r.ContentBeforeSelection, "\n"))
	}
}

// BenchmarkDecodeWays decodes IDE requests of 2 KiB (a typical file) and
// 64 KiB with the request path's tokenizer (internal/jsonscan, through
// Decode) and with encoding/json into the same types, as
// BenchmarkDecode8MiB and BenchmarkDecode8MiBStdlib do at 8 MiB.
func BenchmarkDecodeWays(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"2KiB", 2 << 10}, {"64KiB", 64 << 10}} {
		data := bigRequest(b, size.n)
		b.Run(size.name+"/jsonscan", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(size.name+"/encoding_json", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var list []struct {
					Name  string
					Value json.RawMessage
				}
				if err := json.Unmarshal(data, &list); err != nil {
					b.Fatal(err)
				}
				var e Editor
				if err := json.Unmarshal(list[1].Value, &e); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
