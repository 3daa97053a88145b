package index

import (
	"context"
	"testing"

	"github.com/agentgw/agentgw/internal/cputime"
)

// benchSearches runs qs against ix's knowledge base "kb" each iteration
// and reports CPU milliseconds a search.
func benchSearches(b *testing.B, ix *Index, qs []question) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cputime.Process()
	for b.Loop() {
		for _, q := range qs {
			if _, err := ix.Search(ctx, Query{KB: []string{"kb"}, Text: q.Q, TopK: 10}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64((cputime.Process()-cpu0).Microseconds())/1000/float64(b.N*len(qs)), "cpu-ms/search")
}
