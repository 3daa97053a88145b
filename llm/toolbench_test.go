package llm

import (
	"bytes"
	"testing"

	"github.com/agentgw/agentgw/sse"
)

// textChunk is an ordinary text chunk as OpenAI sends it.
const textChunk = `{"id":"chatcmpl-9xYzAbCdEfGhIjKlMnOpQrStUvW","object":"chat.completion.chunk","created":1712345678,` +
	`"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_abc123","choices":[{"index":0,"delta":{"content":" token\n"},` +
	`"logprobs":null,"finish_reason":null}]}`

type discardSink struct{}

func (discardSink) Chunk([]byte) error { return nil }

// TestToolCallSinkTextChunkAllocs: an ordinary chunk, its text kept, costs
// no allocation once the text buffer has room.
func TestToolCallSinkTextChunkAllocs(t *testing.T) {
	s := &ToolCallSink{Next: discardSink{}}
	raw := []byte(textChunk)
	allocs := testing.AllocsPerRun(100, func() {
		s.text = s.text[:0]
		if err := s.Chunk(raw); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 || s.Text() != " token\n" {
		t.Errorf("%v allocations per chunk, text %q", allocs, s.Text())
	}
}

// BenchmarkToolCallSinkText is the cost of an ordinary text chunk; the
// text is reset every 1024 chunks, as if every answer had 1024 of them.
func BenchmarkToolCallSinkText(b *testing.B) {
	s := &ToolCallSink{Next: discardSink{}}
	raw := []byte(textChunk)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i++; i%1024 == 0 {
			s.text = s.text[:0]
		}
		if err := s.Chunk(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToolCallSinkToolCall is the cost of a tool call fragment.
func BenchmarkToolCallSinkToolCall(b *testing.B) {
	s := &ToolCallSink{Next: discardSink{}}
	raw := []byte(delta(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":\"main.go\"}"}}]}`, `null`))
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Chunk(raw); err != nil {
			b.Fatal(err)
		}
		if len(s.calls[0].arguments) > 1<<20 {
			s.calls[0].arguments = s.calls[0].arguments[:0]
		}
	}
}

func FuzzToolCallSink(f *testing.F) {
	for _, name := range []string{"tool_calls.sse", "tool_calls_parallel.sse", "text_then_tool_calls.sse", "normal.sse"} {
		for _, c := range chunkLines(f, name) {
			f.Add([]byte(c))
		}
	}
	f.Add([]byte(`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":{"a":[1]}}}]}}]}`))
	f.Add([]byte(`{"choices":[ {"delta":{"content":"\ud800x"},"finish_reason":"\u0073top"}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		next := &recordSink{}
		s := &ToolCallSink{Next: next}
		if err := s.Chunk(raw); err != nil {
			t.Fatal(err)
		}
		s.Calls()
		passed := next.list()
		if len(passed) == 1 && passed[0] != string(raw) {
			t.Fatalf("passed on %q, not the chunk", passed[0])
		}
		tools, finishAt := scanKeys(raw)
		if tools != bytes.Contains(raw, []byte("tool_calls")) || (!tools && finishAt != bytes.Index(raw, finishKey)) {
			t.Fatalf("scanKeys(%q) = %v, %d", raw, tools, finishAt)
		}
		if !tools && len(passed) != 1 {
			t.Fatal("an ordinary chunk was dropped")
		}
		if len(passed) == 0 && s.Text() != "" {
			t.Fatalf("dropped a chunk with text %q", s.Text())
		}
	})
}

// BenchmarkRelayChunksToolSink is BenchmarkRelayChunks with a ToolCallSink
// in front of the sse.Writer, as a turn that offers tools relays.
func BenchmarkRelayChunksToolSink(b *testing.B) {
	benchRelayChunks(b, func(w *sse.Writer) BatchSink { return &ToolCallSink{Next: w} })
}
