package sse

import (
	"io"
	"strings"
	"testing"
)

// typicalChunk is a ~200-byte upstream chunk, id first as OpenAI sends it.
const typicalChunk = `{"id":"chatcmpl-9xYzAbCdEfGhIjKlMnOpQrStUvW","object":"chat.completion.chunk",` +
	`"created":1712345678,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_abc123",` +
	`"choices":[{"index":0,"delta":{"content":" token"},"logprobs":null,"finish_reason":null}]}`

func BenchmarkText(b *testing.B) {
	w := NewWriter(io.Discard, goldenOptions)
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Text("Hello, \"world\" — 世界\n"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkChunk(b *testing.B) {
	for _, bc := range []struct{ name, chunk string }{
		{"id_first", typicalChunk},
		{"no_id", strings.Replace(typicalChunk, `"id":"chatcmpl-9xYzAbCdEfGhIjKlMnOpQrStUvW",`, "", 1)},
		// A tool call carries a nested "id": it takes the validating path.
		{"tool_call", toolCallChunk},
	} {
		b.Run(bc.name, func(b *testing.B) {
			w := NewWriter(io.Discard, goldenOptions)
			raw := []byte(bc.chunk)
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if err := w.Chunk(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// toolCallChunk is the first chunk of a tool call.
const toolCallChunk = `{"id":"chatcmpl-9xYzAbCdEfGhIjKlMnOpQrStUvW","object":"chat.completion.chunk",` +
	`"created":1712345678,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,` +
	`"id":"call_abc","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}`

// BenchmarkBufferChunk writes 10 chunks with BufferChunk and one Flush per
// op, as a relay does with a burst.
func BenchmarkBufferChunk(b *testing.B) {
	w := NewWriter(discardFlusher{}, goldenOptions)
	raw := []byte(typicalChunk)
	b.SetBytes(10 * int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		for range 10 {
			if err := w.BufferChunk(raw); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
	}
}

// discardFlusher is io.Discard with a Flush method.
type discardFlusher struct{}

func (discardFlusher) Write(p []byte) (int, error) { return len(p), nil }
func (discardFlusher) Flush()                      {}

// actionPayload is a ~300-byte copilot_action confirm frame.
const actionPayload = `{"action":"confirm","state":"eyJjbWQiOiJyZXZpZXciLCJhZ2VudCI6ImhhcHB5IiwidHMiOjE3MDAwMDAwMDB9` +
	`.c2lnbmF0dXJlLW9mLXRoZS1zdGF0ZQ","data":{"title":"Apply the suggested fix","message":"Replace the loop in ` +
	`handler.go:42 with a call to slices.Index and remove the unused helper?","command":"apply","prompt":"apply fix 1"}}`

func BenchmarkActionEvent(b *testing.B) {
	w := NewWriter(io.Discard, goldenOptions)
	data := []byte(actionPayload)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Event("copilot_action", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkField(b *testing.B) {
	raw := []byte(typicalChunk)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Field(raw, "error"); ok {
			b.Fatal("found an error key")
		}
	}
}

func BenchmarkReaderNext(b *testing.B) {
	const events = 1000
	stream := strings.Repeat("data: "+typicalChunk+"\n\n", events)
	src := strings.NewReader(stream)
	r := NewReader(src)
	b.SetBytes(int64(len(stream) / events))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if n == events {
			b.StopTimer()
			src.Reset(stream)
			r = NewReader(src)
			n = 0
			b.StartTimer()
		}
		if _, err := r.Next(); err != nil {
			b.Fatal(err)
		}
		n++
	}
}

// BenchmarkAppendString encodes a prompt-sized Go source (escapes on every
// line) and English prose (escapes rare), as the upstream request body's
// messages are encoded.
func BenchmarkAppendString(b *testing.B) {
	for _, bc := range []struct{ name, src string }{
		{"source", strings.Repeat("// Order returns the order with the given id.\nfunc (s *Store) Order(ctx context.Context, id int64) (*Order, error) {\n\treturn nil, fmt.Errorf(\"reading order %d: %w\", id, err)\n}\n", 16)},
		{"prose", strings.Repeat("The gateway resolves the context, builds the prompt and streams the answer through. ", 40)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			buf := make([]byte, 0, 2*len(bc.src))
			b.SetBytes(int64(len(bc.src)))
			for b.Loop() {
				buf = AppendString(buf[:0], bc.src)
			}
		})
	}
}

// BenchmarkRewriteID rewrites chunks the fast path of Writer.Chunk does not
// take: a tool call (a nested "id"), a chunk without an id and one spread
// over lines, so every member is scanned.
func BenchmarkRewriteID(b *testing.B) {
	for _, bc := range []struct{ name, chunk string }{
		{"tool_call", toolCallChunk},
		{"no_id", strings.Replace(typicalChunk, `"id":"chatcmpl-9xYzAbCdEfGhIjKlMnOpQrStUvW",`, "", 1)},
		{"lines", strings.ReplaceAll(typicalChunk, `,"`, ",\n  \"")},
	} {
		b.Run(bc.name, func(b *testing.B) {
			raw := []byte(bc.chunk)
			dst := make([]byte, 0, 2*len(raw))
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if dst, err = RewriteID(dst[:0], raw, "chatcmpl-gw"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLeadingValue reads the choices array of a chunk, as a relay
// reads a value after a key it found by searching.
func BenchmarkLeadingValue(b *testing.B) {
	raw := []byte(toolCallChunk[strings.Index(toolCallChunk, `[{"index"`):])
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := LeadingValue(raw); !ok {
			b.Fatal("no value")
		}
	}
}

// BenchmarkAppendUnquoted decodes a content delta: a short token, a line
// of source with escapes, and prose with non-ASCII text.
func BenchmarkAppendUnquoted(b *testing.B) {
	for _, bc := range []struct{ name, q string }{
		{"token", `" token"`},
		{"source", `"\treturn nil, fmt.Errorf(\"reading order %d: %w\", id, err)\n}\n"`},
		{"prose", `"Le résumé: the gateway streams the answer through — 世界 \ud83d\ude00, then ends."`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			q := []byte(bc.q)
			dst := make([]byte, 0, 2*len(q))
			b.SetBytes(int64(len(q)))
			b.ReportAllocs()
			for b.Loop() {
				var ok bool
				if dst, ok = AppendUnquoted(dst[:0], q); !ok {
					b.Fatal("invalid")
				}
			}
		})
	}
}
