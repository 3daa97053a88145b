package index

import (
	"context"
	"testing"
)

// benchSearches runs qs against ix's knowledge base "kb" each iteration
// and reports CPU milliseconds a search.
func benchSearches(b *testing.B, ix *Index, qs []question) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for b.Loop() {
		for _, q := range qs {
			if _, err := ix.Search(ctx, Query{KB: []string{"kb"}, Text: q.Q, TopK: 10}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N*len(qs)), "cpu-ms/search")
}
