package sse

import (
	"bytes"
	"strings"
	"testing"
)

// TestOneFinishChunk: an upstream's finish chunk is not relayed beside the
// Writer's own final chunk; its reason ("length", ...) ends the stream
// instead of "stop". A finish that carries content is relayed with its
// finish_reason null. Exactly one chunk of the stream has a finish reason.
func TestOneFinishChunk(t *testing.T) {
	const head = `{"id":"up","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,`
	content := head + `"delta":{"content":"Hi"},"finish_reason":null}]}`
	tests := []struct {
		name   string
		chunks []string
		end    func(w *Writer) error
		// want is the stream after the id rewrite, frames joined.
		want string
	}{
		{"empty finish dropped, its reason kept", []string{content, head + `"delta":{},"finish_reason":"length"}]}`}, (*Writer).End,
			`data: {"id":"chatcmpl-42","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}` + "\n\n" +
				`data: {"id":"chatcmpl-42","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}` + "\n\n" +
				"data: [DONE]\n\n"},
		{"finish with the role only dropped", []string{head + `"delta":{"role":"assistant","content":null},"finish_reason":"stop"}]}`}, (*Writer).End,
			`data: {"id":"chatcmpl-42","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
				"data: [DONE]\n\n"},
		{"finish with content relayed with null", []string{head + `"delta":{"content":"!"},"finish_reason":"stop"}]}`}, (*Writer).End,
			`data: {"id":"chatcmpl-42","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"!"},"finish_reason":null}]}` + "\n\n" +
				`data: {"id":"chatcmpl-42","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
				"data: [DONE]\n\n"},
		{"usage after the finish relayed", []string{head + `"delta":{},"finish_reason":"stop"}]}`,
			`{"id":"up","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`}, (*Writer).End,
			`data: {"id":"chatcmpl-42","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}` + "\n\n" +
				`data: {"id":"chatcmpl-42","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
				"data: [DONE]\n\n"},
		{"an error ends with error whatever the upstream said", []string{head + `"delta":{},"finish_reason":"length"}]}`},
			func(w *Writer) error { return w.EndWith(FinishError) },
			`data: {"id":"chatcmpl-42","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"error"}]}` + "\n\n" +
				"data: [DONE]\n\n"},
		{"the last reason wins", []string{head + `"delta":{},"finish_reason":"length"}]}`, content, head + `"delta":{},"finish_reason":"stop"}]}`}, (*Writer).End,
			`data: {"id":"chatcmpl-42","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}` + "\n\n" +
				`data: {"id":"chatcmpl-42","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
				"data: [DONE]\n\n"},
		{"several choices relayed as they are", []string{`{"id":"up","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"},{"index":1,"delta":{},"finish_reason":"stop"}]}`}, (*Writer).End,
			`data: {"id":"chatcmpl-42","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"},{"index":1,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
				`data: {"id":"chatcmpl-42","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
				"data: [DONE]\n\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, buffered := range []bool{false, true} {
				var out bytes.Buffer
				w := NewWriter(&out, goldenOptions)
				for _, c := range tc.chunks {
					write := w.Chunk
					if buffered {
						write = w.BufferChunk
					}
					if err := write([]byte(c)); err != nil {
						t.Fatal(err)
					}
				}
				if err := tc.end(w); err != nil {
					t.Fatal(err)
				}
				if got := out.String(); got != tc.want {
					t.Errorf("buffered %v: got\n%s\nwant\n%s", buffered, got, tc.want)
				}
				if n := strings.Count(out.String(), `"finish_reason":"`); n != 1 && !strings.Contains(tc.name, "several") {
					t.Errorf("buffered %v: %d chunks with a finish reason", buffered, n)
				}
			}
		})
	}
}

// TestHasFinishReason: the reason is told without decoding, whatever the
// chunk's tail; null, "" and a key inside a string are no reason.
func TestHasFinishReason(t *testing.T) {
	tests := []struct {
		chunk string
		want  bool
	}{
		{`{"choices":[{"delta":{"content":"x"},"finish_reason":null}]}`, false},
		{`{"choices":[{"delta":{"content":"x"},"finish_reason":null}],"usage":null}`, false},
		{`{"choices":[{"delta":{},"finish_reason": "stop"}],"usage":null}`, true},
		{`{"choices":[{"delta":{},"finish_reason":""}]}`, false},
		{`{"choices":[{"delta":{"content":"\"finish_reason\":\"stop\""},"finish_reason":null}],"x":1}`, false},
		{`{"choices":[{"delta":{},"finish_reason":"length"}]}`, true},
	}
	for _, tc := range tests {
		if got := HasFinishReason([]byte(tc.chunk)); got != tc.want {
			t.Errorf("HasFinishReason(%s) = %v, want %v", tc.chunk, got, tc.want)
		}
	}
}

// TestSplitFinishDecodesOnlyFinishes: a chunk whose tail is not the usual
// null one (a usage member after the choices) but whose reason is null is
// relayed as it is, without being decoded.
func TestSplitFinishDecodesOnlyFinishes(t *testing.T) {
	raw := []byte(`{"id":"up","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}],"usage":null}`)
	if n := testing.AllocsPerRun(100, func() { splitFinish(raw) }); n != 0 {
		t.Errorf("splitFinish allocates %v times for a chunk without a finish reason", n)
	}
	if _, _, ok := splitFinish(raw); ok {
		t.Error("a null reason was taken for a finish")
	}
}
