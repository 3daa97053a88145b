package openaiapi

import (
	"net/http"

	"github.com/agentgw/agentgw/llm"
	"testing"
)

// discardWriter is a ResponseWriter that keeps nothing: what a stream's
// frames cost to build and write, without the network.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Flush()                      {}

// upstreamChunk is a chunk as a model platform streams it, 100 bytes of
// text, as the bench's mock sends them.
var upstreamChunk = []byte(`{"id":"chatcmpl-abc","object":"chat.completion.chunk","created":1735689600,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et"},"logprobs":null,"finish_reason":null}]}`)

// BenchmarkStreamChunk is the OpenAI endpoint's work for one relayed
// upstream chunk of an agent command's answer: reading its text and
// writing it as the endpoint's own chunk.
func BenchmarkStreamChunk(b *testing.B) {
	for _, usage := range []bool{false, true} {
		name := "usage=false"
		if usage {
			name = "usage=true"
		}
		b.Run(name, func(b *testing.B) {
			s := newStreamOut(&discardWriter{h: http.Header{}}, "chatcmpl-0b4a1c9e-7c1e-4c38-9d1e-1f6c2a8e9b11", "agent/bench", 1735689600, usage)
			em := &emitter{agent: "bench", out: s}
			b.ReportAllocs()
			b.SetBytes(int64(len(upstreamChunk)))
			for b.Loop() {
				if err := em.Chunk(upstreamChunk); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkChunkTextOnly(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = llm.ChunkText(upstreamChunk)
	}
}
