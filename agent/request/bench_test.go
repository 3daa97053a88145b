package request

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// BenchmarkDecodeRequestIDE decodes the 3.6 KB request of the bench/
// harness and server.BenchmarkLoopback: an activeEditor with a Go file, its
// visible range and a selection, and a userInputPrompt.
func BenchmarkDecodeRequestIDE(b *testing.B) {
	body, err := os.ReadFile("../../server/testdata/bench_request.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(body); err != nil {
			b.Fatal(err)
		}
	}
}

// manyFieldsBody is a request of n top-level pass-through fields ("f0":0,
// "f1":1, ...), 418 KiB at 40,000 fields: the body that made the decode
// quadratic.
func manyFieldsBody(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"agent":"a"`)
	for i := range n {
		fmt.Fprintf(&b, `,"f%d":%d`, i, i)
	}
	b.WriteString("}")
	return []byte(b.String())
}

// BenchmarkDecodeRequestFields decodes bodies of 10k and 40k pass-through
// fields; ns/field must stay flat as the count grows (decoding is linear).
func BenchmarkDecodeRequestFields(b *testing.B) {
	for _, n := range []int{10_000, 40_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			body := manyFieldsBody(n)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				r, err := Decode(body)
				if err != nil || len(r.Extra) != n {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/field")
		})
	}
}
