package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestChunkText(t *testing.T) {
	for _, tt := range []struct{ name, chunk, want string }{
		{"one choice", `{"choices":[{"index":0,"delta":{"content":"hé\n"}}]}`, "hé\n"},
		{"several choices in order", `{"choices":[{"delta":{"content":"a"}},{"delta":{}},{"delta":{"content":"b"}}]}`, "ab"},
		{"no content", `{"choices":[{"delta":{"role":"assistant"}}]}`, ""},
		{"no choices", `{"id":"x"}`, ""},
		{"not JSON", `{"choices":`, ""},
		{"content of another type", `{"choices":[{"delta":{"content":1}}]}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := ChunkText([]byte(tt.chunk)); got != tt.want {
				t.Errorf("ChunkText(%s) = %q, want %q", tt.chunk, got, tt.want)
			}
		})
	}
}

// chunkTextOracle is ChunkText as encoding/json would have it with exact
// member names: the chunk decoded into generic values and walked.
func chunkTextOracle(raw []byte) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	root, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	var b strings.Builder
	switch choices := root["choices"].(type) {
	case nil:
	case []any:
		for _, c := range choices {
			switch c := c.(type) {
			case nil:
			case map[string]any:
				switch d := c["delta"].(type) {
				case nil:
				case map[string]any:
					switch t := d["content"].(type) {
					case nil:
					case string:
						b.WriteString(t)
					default:
						return ""
					}
				default:
					return ""
				}
			default:
				return ""
			}
		}
	default:
		return ""
	}
	return b.String()
}

func FuzzChunkText(f *testing.F) {
	for _, s := range []string{
		`{"choices":[{"index":0,"delta":{"content":"hé\n"}}]}`,
		`{"choices":[{"delta":{"content":"a"}},{"delta":{}},{"delta":{"content":"b"}}]}`,
		`{"choices":[{"delta":{"content":"a","content":"b"}}],"choices":[{"delta":{"content":"c"}}]}`,
		`{"choices":[null,{"delta":null},{"delta":{"content":null}}]}`,
		`{"choices":[{"delta":{"content":"\ud800x\u00e9"}}]} `,
		`{"choices":"x"}`, `[]`, `{"choices":[1]}`, `{"choices":[{"delta":{"content":"a"}}]} x`,
		"{\"choices\":[{\"delta\":{\"content\":\"\xff\"}}]}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if got, want := ChunkText(raw), chunkTextOracle(raw); got != want {
			t.Errorf("ChunkText(%q) = %q, want %q", raw, got, want)
		}
	})
}

func BenchmarkChunkText(b *testing.B) {
	chunk := []byte(`{"id":"chatcmpl-abc","object":"chat.completion.chunk","created":1735689600,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et"},"logprobs":null,"finish_reason":null}]}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		_ = ChunkText(chunk)
	}
}

// FuzzChunkPlainText holds ChunkPlainText to ChunkText: a plain text is
// the chunk's text and ASCII without control characters, quotes or backslashes (so
// its JSON string is itself between quotes); otherwise the text is
// ChunkText's.
func FuzzChunkPlainText(f *testing.F) {
	for _, s := range []string{
		`{"choices":[{"index":0,"delta":{"content":"hello, world"}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"hé\n"}}]}`,
		`{"choices":[{"delta":{"content":"a"}},{"delta":{}},{"delta":{"content":"b"}}]}`,
		`{"choices":[{"delta":{"content":"a"}},{"delta":{"content":""}}]}`,
		`{"choices":[{"delta":{"content":"a","content":"b\""}}],"choices":[{"delta":{"content":"c"}}]}`,
		`{"choices":[null,{"delta":null},{"delta":{"content":null}}]}`,
		`{"choices":[{"delta":{"content":"\ud800x\u00e9"}}]} `,
		`{"choices":"x"}`, `[]`, `{"choices":[1]}`, `{"choices":[{"delta":{"content":"a"}}]} x`,
		`{"choices":[{"delta":{"content":"a`, `{"choices":[{"delta":{"content":"a\`,
		"{\"choices\":[{\"delta\":{\"content\":\"\xff\"}}]}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		want := ChunkText(raw)
		plain, ok, text := ChunkPlainText(raw)
		if !ok {
			if plain != nil || text != want {
				t.Fatalf("ChunkPlainText(%q) = %q, false, %q; want nil, false, %q", raw, plain, text, want)
			}
			return
		}
		if string(plain) != want || text != "" {
			t.Fatalf("ChunkPlainText(%q) = %q, true, %q; want %q, true, \"\"", raw, plain, text, want)
		}
		for _, c := range plain {
			if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
				t.Fatalf("ChunkPlainText(%q): plain text %q holds %q", raw, plain, c)
			}
		}
	})
}
