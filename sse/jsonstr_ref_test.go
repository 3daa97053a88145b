package sse

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/jsonscan"
)

// jsonStringEncoder is the library way: encoding/json with HTML escaping
// off, its trailing newline dropped.
type jsonStringEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func newJSONStringEncoder() *jsonStringEncoder {
	e := &jsonStringEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}

func (e *jsonStringEncoder) append(dst []byte, s string) []byte {
	e.buf.Reset()
	if err := e.enc.Encode(s); err != nil {
		panic(err)
	}
	return append(dst, bytes.TrimSuffix(e.buf.Bytes(), []byte("\n"))...)
}

// appendStringInputs are the strings AppendString encodes on the request
// path: the relay's chunk ids, a 100-byte content delta (the bench mock's
// chunk size; agent text frames), a 2 KiB and a 64 KiB prompt of source
// (escapes on every line) and prose (escapes rare).
var appendStringInputs = []struct{ name, s string }{
	{"id", "chatcmpl-9xYzAbCdEfGhIjKlMnOpQrStUvW"},
	{"content100", strings.Repeat("t=1764406800123456789;", 5)[:100]},
	{"source2KiB", strings.Repeat("// Order returns the order with the given id.\nfunc (s *Store) Order(ctx context.Context, id int64) (*Order, error) {\n\treturn nil, fmt.Errorf(\"reading order %d: %w\", id, err)\n}\n", 12)[:2048]},
	{"prose2KiB", strings.Repeat("The gateway resolves the context, builds the prompt and streams the answer through. ", 25)[:2048]},
	{"source64KiB", strings.Repeat("// Order returns the order with the given id.\nfunc (s *Store) Order(ctx context.Context, id int64) (*Order, error) {\n\treturn nil, fmt.Errorf(\"reading order %d: %w\", id, err)\n}\n", 400)[:64<<10]},
	{"prose64KiB", strings.Repeat("The gateway resolves the context, builds the prompt and streams the answer through. ", 800)[:64<<10]},
}

// TestAppendStringReferences checks that encoding/json, which the
// benchmark compares AppendString with, produces the same bytes on its
// inputs and on the escapes it has, so the comparison is between equals.
func TestAppendStringReferences(t *testing.T) {
	inputs := []string{"", "a\"b\\c\n\r\t\b\f\x01\x1f", "<&>", "é世\u2028\u2029", "bad\xff\xfe utf8", "😀"}
	for _, in := range appendStringInputs {
		inputs = append(inputs, in.s)
	}
	enc := newJSONStringEncoder()
	for _, s := range inputs {
		want := string(AppendString(nil, s))
		if got := string(enc.append(nil, s)); got != want {
			t.Errorf("encoding/json(%q) = %s, want %s", s, got, want)
		}
	}
}

// BenchmarkAppendStringWays compares AppendString with encoding/json on the
// request path's strings.
func BenchmarkAppendStringWays(b *testing.B) {
	for _, in := range appendStringInputs {
		buf := make([]byte, 0, 2*len(in.s)+8)
		b.Run(in.name+"/append_string", func(b *testing.B) {
			b.SetBytes(int64(len(in.s)))
			for b.Loop() {
				buf = AppendString(buf[:0], in.s)
			}
		})
		b.Run(in.name+"/encoding_json", func(b *testing.B) {
			enc := newJSONStringEncoder()
			b.SetBytes(int64(len(in.s)))
			for b.Loop() {
				buf = enc.append(buf[:0], in.s)
			}
		})
	}
}

// BenchmarkValidateWays validates relayed chunks, as RewriteID does for a
// chunk off Writer.Chunk's fast path, with internal/jsonscan in its relay
// mode and with json.Valid.
func BenchmarkValidateWays(b *testing.B) {
	for _, bc := range []struct{ name, chunk string }{
		{"typical", typicalChunk},
		{"tool_call", toolCallChunk},
	} {
		raw := []byte(bc.chunk)
		b.Run(bc.name+"/jsonscan", func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				js := jsonscan.Scanner{Data: raw, AcceptInvalidUTF8: true}
				if err := js.Skip(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bc.name+"/json_Valid", func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if !json.Valid(raw) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
