package llm

import "testing"

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
