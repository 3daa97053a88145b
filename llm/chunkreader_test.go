package llm

import (
	"bytes"
	"testing"
)

// readerHead is how OpenAI starts the chunks of one stream.
const readerHead = `{"id":"chatcmpl-abc","object":"chat.completion.chunk","created":1735689600,"model":"gpt-4o-mini",` +
	`"system_fingerprint":"fp_1","choices":[{"index":0,"delta":`

// readerChunk is a chunk of readerHead's stream with the delta and what
// follows the choices.
func readerChunk(delta, after string) string {
	return readerHead + delta + `,"logprobs":null,"finish_reason":null}]` + after + `}`
}

func TestChunkReader(t *testing.T) {
	type step struct {
		chunk string
		// fast is whether the chunk is read by the kept layout.
		fast bool
	}
	for _, tt := range []struct {
		name  string
		steps []step
	}{
		{"a stream", []step{
			{readerChunk(`{"role":"assistant","content":""}`, ""), false},
			{readerChunk(`{"content":"Hello"}`, ""), false},
			{readerChunk(`{"content":", world"}`, ""), true},
			{readerChunk(`{"content":""}`, ""), true},
			{readerChunk(`{"content":"é"}`, ""), false},
			{readerChunk(`{"content":"a\nb"}`, ""), false},
			{readerChunk(`{"content":"again"}`, ""), true},
			{readerHead + `{},"logprobs":null,"finish_reason":"stop"}]}`, false},
			{readerHead[:len(readerHead)-len(`{"index":0,"delta":`)] + `],"usage":{"prompt_tokens":9}}`, false},
		}},
		{"other members after the choices", []step{
			{readerChunk(`{"content":"a"}`, `,"obfuscation":"xyz"`), false},
			{readerChunk(`{"content":"b"}`, `,"obfuscation":"q"`), true},
			{readerChunk(`{"content":"c"}`, ``), true},
			{readerChunk(`{"content":"d"}`, `,"usage":null,"x":[1,{"y":true}]`), true},
		}},
		{"a later choices counts", []step{
			{readerChunk(`{"content":"a"}`, ``), false},
			{readerChunk(`{"content":"b"}`, `,"choices":[{"delta":{"content":"c"}}]`), false},
			{readerChunk(`{"content":"a"}`, ``), false},
			{readerChunk(`{"content":"b"}`, `,"choic\u0065s":null`), false},
			{readerChunk(`{"content":"a"}`, ``), false},
			{readerChunk(`{"content":"b"}`, `,"choices":null`), false},
		}},
		{"not JSON after the text", []step{
			{readerChunk(`{"content":"a"}`, ``), false},
			{readerChunk(`{"content":"b"}`, `,`), false},
			{readerChunk(`{"content":"a"}`, ``), false},
			{readerChunk(`{"content":"b"}`, `} x`), false},
			{readerChunk(`{"content":"a"}`, ``), false},
			{readerChunk(`{"content":"b"}`, `,"x":[`), false},
			{readerChunk(`{"content":"a"}`, ``), false},
			{readerHead + `{"content":"b" "x"},"logprobs":null,"finish_reason":null}]}`, false},
			{readerHead + `{"content":"b"x"},"logprobs":null,"finish_reason":null}]}`, false},
			{readerHead + `{"content":"b`, false},
			{readerHead + `{"content":"b\`, false},
			{readerChunk(`{"content":"a"}`, ``), false},
			{readerChunk(`{"content":"b"}`, ``), true},
		}},
		{"another id", []step{
			{readerChunk(`{"content":"a"}`, ``), false},
			{`{"id":"chatcmpl-xyz"` + readerChunk(`{"content":"b"}`, ``)[len(`{"id":"chatcmpl-abc"`):], false},
		}},
		{"several choices", []step{
			{`{"choices":[{"delta":{"content":"a"}},{"delta":{"content":""}}]}`, false},
			{`{"choices":[{"delta":{"content":"b"}},{"delta":{"content":""}}]}`, true},
			{`{"choices":[{"delta":{"content":"b"}},{"delta":{"content":"c"}}]}`, false},
			{`{"choices":[{"delta":{"content":"a","content":"b"}}]}`, false},
			{`{"choices":[{"delta":{"content":"a","content":"c"}}]}`, true},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var r ChunkReader
			for i, st := range tt.steps {
				raw := []byte(st.chunk)
				_, _, _, hit := r.fast(raw)
				if hit != st.fast {
					t.Errorf("step %d: read by the kept layout %v, want %v: %s", i, hit, st.fast, raw)
				}
				checkReader(t, &r, raw)
			}
		})
	}
}

// checkReader checks r.PlainText(raw) against ChunkPlainText and, for its
// text, against encoding/json (chunkTextOracle).
func checkReader(t *testing.T, r *ChunkReader, raw []byte) {
	t.Helper()
	// A copy, overwritten after the call: the reader may not keep it.
	in := bytes.Clone(raw)
	plain, ok, text := r.PlainText(in)
	wPlain, wOK, wText := ChunkPlainText(raw)
	if string(plain) != string(wPlain) || (plain == nil) != (wPlain == nil) || ok != wOK || text != wText {
		t.Fatalf("PlainText(%q) = %q, %v, %q; ChunkPlainText: %q, %v, %q", raw, plain, ok, text, wPlain, wOK, wText)
	}
	if got, want := string(plain)+text, chunkTextOracle(raw); got != want {
		t.Fatalf("PlainText(%q) reads %q; encoding/json %q", raw, got, want)
	}
	for i := range in {
		in[i] = 'x'
	}
}

// FuzzChunkReader holds ChunkReader to ChunkPlainText, and its text to
// encoding/json's: a first chunk, then a second made of the first's
// bytes around its text (when it has a text the reader keeps the layout
// of) with another text and other members after the choices, then the
// first again.
func FuzzChunkReader(f *testing.F) {
	for _, s := range []struct{ first, text, after string }{
		{readerChunk(`{"content":"Hello"}`, ""), ", world", ""},
		{readerChunk(`{"content":"Hello"}`, ""), "", `,"obfuscation":"x"`},
		{readerChunk(`{"content":"Hello"}`, `,"obfuscation":"xyz"`), "a", `,"choices":[{"delta":{"content":"c"}}]`},
		{readerChunk(`{"content":"Hello"}`, ""), `a"`, ``},
		{readerChunk(`{"content":"Hello"}`, ""), `a\u00e9`, ``},
		{readerChunk(`{"content":"Hello"}`, ""), "\xff", ``},
		{readerChunk(`{"content":"Hello"}`, ""), "a", `,"choic\u0065s":null`},
		{`{"choices":[{"delta":{"content":"a","content":"b"}}]}`, "x", ``},
		{`{"choices":[{"delta":{"content":"a"}},{"delta":{"content":""}}]} `, "x", `,`},
		{`{"choices":[null,{"delta":{"content":"\n"}}]}`, "x", `,"a":[[[[1]]]]`},
	} {
		f.Add([]byte(s.first), []byte(s.text), []byte(s.after))
	}
	f.Fuzz(func(t *testing.T, first, text, after []byte) {
		var r ChunkReader
		checkReader(t, &r, first)
		if len(r.head) == 0 {
			return
		}
		second := append(append(append(append(bytes.Clone(r.head), text...), r.mid...), after...), '}')
		checkReader(t, &r, second)
		checkReader(t, &r, first)
	})
}

func BenchmarkChunkReader(b *testing.B) {
	chunks := [][]byte{
		[]byte(readerChunk(`{"content":"Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et"}`, "")),
		[]byte(readerChunk(`{"content":"dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip"}`, "")),
	}
	for _, tt := range []struct {
		name string
		read func(*ChunkReader, []byte) ([]byte, bool, string)
	}{
		{"walk", func(_ *ChunkReader, raw []byte) ([]byte, bool, string) { return ChunkPlainText(raw) }},
		{"reader", (*ChunkReader).PlainText},
	} {
		b.Run(tt.name, func(b *testing.B) {
			var r ChunkReader
			b.ReportAllocs()
			b.SetBytes(int64(len(chunks[0])))
			i := 0
			for b.Loop() {
				if _, ok, _ := tt.read(&r, chunks[i&1]); !ok {
					b.Fatal("not plain")
				}
				i++
			}
		})
	}
}
