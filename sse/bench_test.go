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
