package main

import (
	"bytes"
	"testing"
	"time"
)

// TestLatencyTable renders the latency rows, with and without the rows of
// -perf-trace.
func TestLatencyTable(t *testing.T) {
	us := func(p50, p99 int) quantiles {
		return quantiles{P50: time.Duration(p50) * time.Microsecond, P99: time.Duration(p99) * time.Microsecond, N: 100}
	}
	res := func(ttfb, chunk quantiles, in *inProcess) *latencyResult {
		return &latencyResult{TTFB: ttfb, Chunk: chunk, InProcess: in}
	}
	for _, tc := range []struct {
		name   string
		traced bool
	}{{"untraced", false}, {"traced", true}} {
		t.Run(tc.name, func(t *testing.T) {
			var pin, gin *inProcess
			if tc.traced {
				pin = &inProcess{Request: us(170, 300), FirstChunk: us(97, 150), Chunk: us(10, 40)}
				gin = &inProcess{Request: us(330, 500), FirstChunk: us(81, 140), Chunk: us(14, 45)}
			}
			r := &results{Latency: map[string]*latencyResult{
				pathDirect:  res(us(290, 560), us(49, 207), nil),
				pathProxy:   res(us(683, 1570), us(88, 331), pin),
				pathGateway: res(us(808, 1377), us(94, 341), gin),
			}}
			var out bytes.Buffer
			writeTable(&out, r)
			checkGolden(t, "testdata/table-"+tc.name+".md", out.Bytes())
		})
	}
}
