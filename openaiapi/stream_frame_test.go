package openaiapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

// recordWriter keeps what is written to it.
type recordWriter struct {
	discardWriter
	bytes.Buffer
}

func (r *recordWriter) Write(p []byte) (int, error) { return r.Buffer.Write(p) }

// FuzzContentFrame: a content chunk built around its text (content) is
// byte for byte the chunk encoding/json encodes (chunk), whatever the
// text, the stream's id and model.
func FuzzContentFrame(f *testing.F) {
	for _, s := range []string{"", "hé\n", "<a href=\"x\">&</a>", "\x00\x08\x0c\x1f\x7f", "\u2028\u2029", "\xff\xfe", "\\\"", "😀"} {
		f.Add(s, "agent/bench", true)
		f.Add(s, "m\"<\u2028\xff", false)
	}
	f.Fuzz(func(t *testing.T, text, model string, usage bool) {
		w := &recordWriter{discardWriter: discardWriter{h: http.Header{}}}
		s := newStreamOut(w, "chatcmpl-"+model, model, 1735689600, usage)
		for range 2 { // the second is built from the parts the first made
			w.Reset()
			if err := s.content(text, true); err != nil {
				t.Fatal(err)
			}
			want, err := encodeFrame(chunkOf(s, deltaJSON{Content: &text}, nil))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(w.Bytes(), want) {
				t.Fatalf("content(%q):\n got %q\nwant %q", text, w.Bytes(), want)
			}
		}
	})
}

// FuzzPlainFrame: a content chunk built from a plain text's bytes (plain)
// is byte for byte the one content builds from the text, for every text
// llm.ChunkPlainText may give (ASCII without control characters, quotes
// or backslashes); the fuzzer's other texts are skipped.
func FuzzPlainFrame(f *testing.F) {
	for _, s := range []string{"", "hello, world", "<a href=x>&</a>", "\x7f~", "ab\"", "\u00e9"} {
		f.Add(s, "agent/bench", true)
		f.Add(s, "m\"<\u2028\xff", false)
	}
	f.Fuzz(func(t *testing.T, text, model string, usage bool) {
		for _, c := range []byte(text) {
			if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
				t.Skip("not a plain text")
			}
		}
		want := &recordWriter{discardWriter: discardWriter{h: http.Header{}}}
		if err := newStreamOut(want, "chatcmpl-"+model, model, 1735689600, usage).content(text, true); err != nil {
			t.Fatal(err)
		}
		w := &recordWriter{discardWriter: discardWriter{h: http.Header{}}}
		s := newStreamOut(w, "chatcmpl-"+model, model, 1735689600, usage)
		for range 2 { // the second is built from the parts the first made
			w.Reset()
			if err := s.plain([]byte(text), true); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(w.Bytes(), want.Bytes()) {
				t.Fatalf("plain(%q):\n got %q\nwant %q", text, w.Bytes(), want.Bytes())
			}
		}
	})
}

// chunkJSON is one chat.completion.chunk, in OpenAI's member order: the
// reference the stream's frames, built by hand (streamOut.partsLocked),
// are held to, encoded by encodeFrame.
type chunkJSON struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Created int64           `json:"created"`
	Model   string          `json:"model"`
	Choices []choiceJSON    `json:"choices"`
	Usage   json.RawMessage `json:"usage,omitempty"`
}

// choiceJSON is a chunk's choice.
type choiceJSON struct {
	Index        int       `json:"index"`
	Delta        deltaJSON `json:"delta"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

// deltaJSON is a choice's delta: the role in the first chunk, content in
// the others, nothing in the last.
type deltaJSON struct {
	Role    string  `json:"role,omitempty"`
	Content *string `json:"content,omitempty"`
}

// nullUsage is the usage every chunk but the usage chunk carries when the
// client asked for usage, as OpenAI sends it.
var nullUsage = json.RawMessage("null")

// chunkOf is s's chunk with delta d and finish reason finish, as
// encoding/json would have it.
func chunkOf(s *streamOut, d deltaJSON, finish *string) chunkJSON {
	c := chunkJSON{ID: s.id, Object: "chat.completion.chunk", Created: s.created, Model: s.model,
		Choices: []choiceJSON{{Delta: d, FinishReason: finish}}}
	if s.includeUsage {
		c.Usage = nullUsage
	}
	return c
}

// mustFrame is encodeFrame(v).
func mustFrame(t *testing.T, v any) []byte {
	t.Helper()
	b, err := encodeFrame(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzStreamFrames: the first chunk (start), the finish chunk, the usage
// chunk and the terminator (finish) are byte for byte what encoding/json
// encodes of them, whatever the stream's id, model, created time, finish
// reason and token counts.
func FuzzStreamFrames(f *testing.F) {
	for _, s := range []string{"", "agent/bench", "m\"<\u2028\xff", "😀\x00"} {
		f.Add(s, int64(1735689600), "stop", true, 900, 20)
		f.Add(s, int64(-1), "length\"<>", false, 0, -3)
	}
	f.Fuzz(func(t *testing.T, model string, created int64, reason string, withUsage bool, in, out int) {
		w := &recordWriter{discardWriter: discardWriter{h: http.Header{}}}
		s := newStreamOut(w, "chatcmpl-"+model, model, created, withUsage)
		if err := s.start(); err != nil {
			t.Fatal(err)
		}
		empty := ""
		if want := mustFrame(t, chunkOf(s, deltaJSON{Role: "assistant", Content: &empty}, nil)); !bytes.Equal(w.Bytes(), want) {
			t.Fatalf("start:\n got %q\nwant %q", w.Bytes(), want)
		}
		w.Reset()
		u := usage{PromptTokens: in, CompletionTokens: out, TotalTokens: in + out}
		if err := s.finish(u, reason); err != nil {
			t.Fatal(err)
		}
		want := mustFrame(t, chunkOf(s, deltaJSON{}, &reason))
		if withUsage {
			data, err := json.Marshal(u)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, mustFrame(t, chunkJSON{ID: s.id, Object: "chat.completion.chunk", Created: s.created,
				Model: s.model, Choices: []choiceJSON{}, Usage: data})...)
		}
		want = append(want, "data: [DONE]\n\n"...)
		if !bytes.Equal(w.Bytes(), want) {
			t.Fatalf("finish:\n got %q\nwant %q", w.Bytes(), want)
		}
	})
}
