package openaiapi

import (
	"bytes"
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
			want, err := encodeFrame(s.chunkOf(deltaJSON{Content: &text}, nil))
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
