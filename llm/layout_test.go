package llm

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/sse"
)

// layoutChunk is a chunk of the bench's layout with text as its content's
// JSON string content.
func layoutChunk(text string) string {
	return `{"id":"chatcmpl-9x","object":"chat.completion.chunk","created":1712345678,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"` +
		text + `"},"logprobs":null,"finish_reason":null}]}`
}

// TestChunkLayout: which chunks count as the remembered one with another
// text (and so skip the relay's key searches).
func TestChunkLayout(t *testing.T) {
	var l chunkLayout
	l.learn([]byte(layoutChunk(" token00")))
	tests := []struct {
		chunk string
		same  bool
	}{
		{layoutChunk(" token01"), true},
		{layoutChunk(""), true},
		{layoutChunk(`a \"quoted\" word`), true},
		{layoutChunk(`ends in a backslash\\`), true},
		{layoutChunk(`\u0065rror`), true}, // the text, not a key
		{layoutChunk(strings.Repeat("long text ", 100)), true},
		// A quote ends the string: what follows is not the remembered tail.
		{layoutChunk(`a"},"error":{"message":"x"},"b":{"c":"`), false},
		{layoutChunk(`a\\"},"error":{"message":"x"},"b":{"c":"`), false},
		{`{"id":"chatcmpl-9x","object":"chat.completion.chunk","created":1712345678,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}],"error":{"message":"x"}}`, false},
		{`{"id":"chatcmpl-9x","object":"chat.completion.chunk","created":1712345678,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`, false},
		{`{"id":"chatcmpl-9x","object":"chat.completion.chunk","created":1712345678,"model":"gpt-4o","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}`, false},
		{`{"error":{"message":"x"}}`, false},
		{`{"id":"chatcmpl-9x"`, false},
	}
	for _, tt := range tests {
		if got := l.same([]byte(tt.chunk)); got != tt.same {
			t.Errorf("same(%s) = %v, want %v", tt.chunk, got, tt.same)
		}
	}
	// A string followed by ':' is a key, never the varying string.
	l.learn([]byte(`{"a":"b","c":1}`))
	if l.same([]byte(`{"a":"b","error":1}`)) || !l.same([]byte(`{"a":"xyz","c":1}`)) {
		t.Error("the layout varies a key")
	}
	// No string value, or too long to keep: nothing remembered.
	for _, c := range []string{`{"a":1}`, `{"a":"` + strings.Repeat("x", 500) + `","b":null}` + strings.Repeat(" ", 400)} {
		l.learn([]byte(c))
		if l.head != 0 || l.same([]byte(c)) {
			t.Errorf("learned %.40s…", c)
		}
	}
}

// learnable is the relay's test for a chunk it searched to have neither an
// "error" nor a "usage" key.
func learnable(data []byte) bool {
	escaped := hasEscapedLetter(data)
	return !escaped && !bytes.Contains(data, errorKey) &&
		!(bytes.Contains(data, usageKey) && !bytes.Contains(data, usageNull))
}

// FuzzChunkLayout holds the shortcut to reading the members: a chunk the
// layout calls the same as a learnable one has no non-null top-level
// "error" (sse.Field, which decodes keys) and no usage object the relay
// would read.
func FuzzChunkLayout(f *testing.F) {
	f.Add([]byte(layoutChunk(" token00")), []byte(" token01"), false)
	f.Add([]byte(layoutChunk(" token00")), []byte(`a"},"error":{"message":"x"},"b":{"c":"`), false)
	f.Add([]byte(layoutChunk(" token00")), []byte(`a\\"},"\u0065rror":{"message":"x"},"b":{"c":"`), false)
	f.Add([]byte(layoutChunk(" token00")), []byte(`{"error":{"message":"x"}}`), true)
	f.Add([]byte(`{"id":"c","choices":[{"delta":{"content":"a"}}],"usage":null}`), []byte(`b`), false)
	f.Add([]byte(`{"id":"c","choices":[{"delta":{"content":"a"}}],"usage":null}`), []byte(`{"id":"c","choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":1}}`), true)
	f.Add([]byte(`{"a":"b","c":1}`), []byte(`{"a":"b","error":1}`), true)
	f.Fuzz(func(t *testing.T, prev, text []byte, whole bool) {
		if !learnable(prev) {
			return
		}
		if v, ok := sse.Field(prev, "error"); ok && string(v) != "null" {
			t.Fatalf("learnable with an error: %q", prev)
		}
		if v, ok := sse.Field(prev, "usage"); ok && len(v) > 0 && v[0] == '{' && !bytes.Contains(prev, usageNull) {
			t.Fatalf("learnable with usage: %q", prev)
		}
		var l chunkLayout
		l.learn(prev)
		next := text
		if !whole {
			if l.head == 0 {
				return
			}
			next = append(append(append([]byte(nil), l.buf[:l.head]...), text...), l.buf[l.head:l.head+l.tail]...)
		}
		if !l.same(next) {
			return
		}
		if v, ok := sse.Field(next, "error"); ok && string(v) != "null" {
			t.Errorf("the layout of %q hides the error of %q", prev, next)
		}
		if v, ok := sse.Field(next, "usage"); ok && len(v) > 0 && v[0] == '{' && !bytes.Contains(next, usageNull) {
			t.Errorf("the layout of %q hides the usage of %q", prev, next)
		}
	})
}

// TestChunkLayoutLearning: which chunks of a stream are remembered, as the
// relay tells the layout of them: the first chunk of text after the role
// chunk, not the finish chunk nor the next role chunk (the text's layout
// served), and no more than maxLearned for chunks that never share one.
func TestChunkLayoutLearning(t *testing.T) {
	role := `{"id":"chatcmpl-9x","object":"chat.completion.chunk","created":1712345678,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`
	finish := `{"id":"chatcmpl-9x","object":"chat.completion.chunk","created":1712345678,"model":"gpt-4o","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}`
	var l chunkLayout
	relay := func(chunk string) bool {
		if l.same([]byte(chunk)) {
			return true
		}
		l.searched([]byte(chunk), learnable([]byte(chunk)))
		return false
	}
	var got []bool
	for _, c := range []string{role, layoutChunk("a"), layoutChunk("b"), layoutChunk("c"), finish, role, layoutChunk("d")} {
		got = append(got, relay(c))
	}
	if want := []bool{false, false, true, true, false, false, true}; !slices.Equal(got, want) {
		t.Errorf("same: %v, want %v", got, want)
	}
	if l.learned != 1 {
		t.Errorf("learned %d chunks, want 1", l.learned)
	}
	// OpenAI's "obfuscation" member varies a second string: no chunk is
	// the same, and only maxLearned are read to be remembered.
	l = chunkLayout{}
	for i := range 20 {
		c := strings.TrimSuffix(layoutChunk(strings.Repeat("x", i)), "}") + `,"obfuscation":"` + strings.Repeat("o", 20-i) + `"}`
		if relay(c) {
			t.Fatalf("chunk %d same", i)
		}
	}
	if l.learned != maxLearned {
		t.Errorf("learned %d chunks, want %d", l.learned, maxLearned)
	}
	// A chunk with an "error" or "usage" key is never remembered.
	l = chunkLayout{}
	for _, c := range []string{`{"a":"x","error":null}`, `{"a":"y","error":null}`, `{"a":"x","usage":{"b":"c"}}`, `{"a":"y","usage":{"b":"c"}}`} {
		if relay(c) {
			t.Errorf("%s same", c)
		}
	}
	if l.head != 0 {
		t.Error("remembered a chunk with a key to read")
	}
}
