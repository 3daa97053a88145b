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
			if err := s.content(text); err != nil {
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
