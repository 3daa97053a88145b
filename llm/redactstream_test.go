package llm

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// chunked reads s in reads of the sizes given, cycling through them.
type chunked struct {
	s     string
	sizes []int
	i     int
}

func (c *chunked) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	n := min(c.sizes[c.i%len(c.sizes)], len(p), len(c.s))
	c.i++
	copy(p, c.s[:n])
	c.s = c.s[n:]
	return n, nil
}

// TestRedactorReader: a credential is replaced however the body's reads
// cut it, in every form Redact knows; text that only starts like one is
// passed on, and an event is not held back for the next read.
func TestRedactorReader(t *testing.T) {
	r := NewRedactor([]string{"sk-upstream-0123456789", "tok/en+1"})
	tests := []struct{ name, in string }{
		{"plain", "data: {\"error\":{\"message\":\"bad key sk-upstream-0123456789\"}}\n\n"},
		{"twice", "sk-upstream-0123456789sk-upstream-0123456789"},
		{"escaped forms", "a tok%2Fen%2B1 b tok%2Fen+1 c tok/en+1"},
		{"prefix only", "sk-upstream-01234 is not it; sk-up"},
		{"prefix then key", "sk-upsk-upstream-0123456789x"},
		{"nothing", "hello world"},
		{"empty", ""},
	}
	for _, tc := range tests {
		want := r.Redact(tc.in)
		for _, sizes := range [][]int{{1}, {2, 3}, {7}, {5, 1, 13}, {1 << 20}} {
			got, err := io.ReadAll(r.NewReader(&chunked{s: tc.in, sizes: sizes}))
			if err != nil || string(got) != want {
				t.Errorf("%s, reads of %v: %q, %v; want %q", tc.name, sizes, got, err, want)
			}
		}
		got, err := io.ReadAll(iotest.DataErrReader(r.NewReader(iotest.OneByteReader(strings.NewReader(tc.in)))))
		if err != nil || string(got) != want {
			t.Errorf("%s, one byte at a time: %q, %v; want %q", tc.name, got, err, want)
		}
	}
	// An event that does not end with a credential's start is passed on
	// whole by the read that brought it.
	pr, pw := io.Pipe()
	rd := r.NewReader(pr)
	go func() { _, _ = pw.Write([]byte("data: {\"x\":\"sk-upstream-0123456789\"}\n\n")) }()
	buf := make([]byte, 256)
	n, err := rd.Read(buf)
	if want := "data: {\"x\":\"[REDACTED]\"}\n\n"; err != nil || string(buf[:n]) != want {
		t.Errorf("first read %q, %v; want %q", buf[:n], err, want)
	}
	_ = pw.Close()
	if (*Redactor)(nil).NewReader(pr) != io.Reader(pr) || NewRedactor(nil).NewReader(pr) != io.Reader(pr) {
		t.Error("a Redactor without credentials wraps the body")
	}
}

// FuzzRedactorReader: the streamed redaction is Redact's, whatever the
// text and however it is read.
func FuzzRedactorReader(f *testing.F) {
	f.Add("xx sk-secret-1 yy sk-secret-1", byte(3))
	f.Add("sk-sk-secret-1sk-secret", byte(1))
	f.Add("Bearer sk-secret-1 and ab%2Fcd", byte(5))
	r := NewRedactor([]string{"sk-secret-1", "sk-secret-12", "ab/cd", "secret-1x"}, map[string][]string{"Authorization": {"Bearer sk-secret-1"}})
	f.Fuzz(func(t *testing.T, s string, size byte) {
		got, err := io.ReadAll(r.NewReader(&chunked{s: s, sizes: []int{int(size%17) + 1, 1}}))
		if err != nil {
			t.Fatal(err)
		}
		if want := r.Redact(s); !bytes.Equal(got, []byte(want)) {
			t.Errorf("%q read in %d: %q, want %q", s, size%17+1, got, want)
		}
	})
}

// BenchmarkRedactorReader: the cost of redacting a relayed stream of
// chunks, against copying it as it is.
func BenchmarkRedactorReader(b *testing.B) {
	event := "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"some streamed words\"},\"finish_reason\":null}]}\n\n"
	body := strings.Repeat(event, 1000)
	r := NewRedactor([]string{"sk-upstream-0123456789abcdef", "agw-inbound-token-5555"}, map[string][]string{"Authorization": {"Bearer sk-client-9876543210"}})
	for _, bc := range []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{{"copy", func(r io.Reader) io.Reader { return r }}, {"redacted", r.NewReader}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, err := io.Copy(io.Discard, bc.wrap(strings.NewReader(body))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
