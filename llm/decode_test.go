package llm

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"net/http"
	"testing"
)

func encode(t testing.TB, coding string, data []byte) []byte {
	var b bytes.Buffer
	var w io.WriteCloser
	switch coding {
	case "gzip":
		w = gzip.NewWriter(&b)
	case "zlib":
		w = zlib.NewWriter(&b)
	case "flate":
		w, _ = flate.NewWriter(&b, flate.DefaultCompression)
	}
	_, _ = w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodedResponse(ce string, body []byte) *http.Response {
	h := http.Header{"Content-Length": {"1"}}
	if ce != "" {
		h.Set("Content-Encoding", ce)
	}
	return &http.Response{Header: h, Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body))}
}

// TestDecodeBody: what an upstream encodes unasked is read as text, the
// codings undone last first; an unknown coding is an *EncodingError.
func TestDecodeBody(t *testing.T) {
	text := []byte(`{"error":{"message":"key sk-0123456789"}}`)
	tests := []struct {
		name, ce string
		body     []byte
		unknown  bool
	}{
		{"none", "", text, false},
		{"identity", "identity", text, false},
		{"deflate (zlib)", "deflate", encode(t, "zlib", text), false},
		{"deflate (raw)", "Deflate", encode(t, "flate", text), false},
		{"gzip", "gzip", encode(t, "gzip", text), false},
		{"x-gzip", "x-gzip", encode(t, "gzip", text), false},
		{"gzip, deflate", "gzip, deflate", encode(t, "zlib", encode(t, "gzip", text)), false},
		{"br", "br", text, true},
		{"gzip, zstd", "gzip, zstd", text, true},
	}
	for _, tc := range tests {
		resp := encodedResponse(tc.ce, tc.body)
		err := DecodeBody(resp)
		var ee *EncodingError
		if tc.unknown {
			if !errors.As(err, &ee) {
				t.Errorf("%s: %v, want an *EncodingError", tc.name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got, err := io.ReadAll(resp.Body)
		if err != nil || !bytes.Equal(got, text) {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, text)
		}
		if tc.ce != "" && (resp.Header.Get("Content-Encoding") != "" || resp.Header.Get("Content-Length") != "" || resp.ContentLength != -1) {
			t.Errorf("%s: headers %v, length %d after decoding", tc.name, resp.Header, resp.ContentLength)
		}
	}
}

// FuzzDecodeBody: any body under any coding decodes or fails, without a
// panic.
func FuzzDecodeBody(f *testing.F) {
	f.Add("deflate", encode(f, "zlib", []byte("hello")))
	f.Add("deflate", encode(f, "flate", []byte("hello")))
	f.Add("gzip, deflate", []byte{0x78, 0x9c, 0x00})
	f.Add("x-gzip", encode(f, "gzip", []byte("hello")))
	f.Fuzz(func(t *testing.T, ce string, body []byte) {
		resp := encodedResponse(ce, body)
		if DecodeBody(resp) == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		}
	})
}
