package openaiapi

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestReadBody: the body is read whole, byte for byte, whatever its
// declared length says (right, shorter, longer, unknown), and a body over
// the limit is http.MaxBytesReader's error, as with io.ReadAll.
func TestReadBody(t *testing.T) {
	body := strings.Repeat(`{"model":"m"}`, 50)
	for _, tc := range []struct {
		name string
		size int64
	}{
		{"declared", int64(len(body))},
		{"unknown", -1},
		{"declared longer", int64(len(body)) + 10},
		{"declared shorter", int64(len(body)) - 10},
		{"declared empty", 0},
		{"declared over the limit", 1 << 30},
	} {
		got, err := readBody(strings.NewReader(body), tc.size, 1<<20)
		if err != nil || !bytes.Equal(got, []byte(body)) {
			t.Errorf("%s: %q, %v; want the body", tc.name, got, err)
		}
	}
	got, err := readBody(strings.NewReader(""), 5, 1<<20)
	if err != nil || len(got) != 0 {
		t.Errorf("an empty body declared 5 bytes: %q, %v", got, err)
	}
	for _, size := range []int64{int64(len(body)), 100, -1} {
		r := http.MaxBytesReader(httptest.NewRecorder(), nopCloser{strings.NewReader(body)}, 100)
		var mb *http.MaxBytesError
		if _, err := readBody(r, size, 100); !errors.As(err, &mb) {
			t.Errorf("a body over the limit, declared %d: %v, want a MaxBytesError", size, err)
		}
	}
}

type nopCloser struct{ *strings.Reader }

func (nopCloser) Close() error { return nil }

// TestReadBodyClaimedLength: a declared Content-Length is a claim. A body
// of a few bytes that declares 64 MiB (within the limit) costs a buffer of
// at most the first allocation's bound, not the claim (the handler may be
// served without the server's body middleware, which reads it first).
func TestReadBodyClaimedLength(t *testing.T) {
	got, err := readBody(strings.NewReader(`{"model":"m"}`), 64<<20, 128<<20)
	if err != nil || string(got) != `{"model":"m"}` {
		t.Fatalf("readBody = %q, %v; want the body", got, err)
	}
	if c := cap(got); c > bodyStart+1 {
		t.Errorf("a 13-byte body declaring 64 MiB got a buffer of %d bytes, want at most %d", c, bodyStart+1)
	}
}
