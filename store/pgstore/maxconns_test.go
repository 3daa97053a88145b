package pgstore

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/store"
)

// TestMaxConns: store.WithMaxConns bounds the pool, over the URL's
// pool_max_conns; without it the URL's bound holds; without either the
// pool holds up to defaultMaxConns (or the CPU count, when larger).
func TestMaxConns(t *testing.T) {
	url := pgtest.Schema(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	for _, tc := range []struct {
		url  string
		opts []store.Option
		want int32
	}{
		{url + sep + "pool_max_conns=7", nil, 7},
		{url + sep + "pool_max_conns=7", []store.Option{store.WithMaxConns(3)}, 3},
		{url, []store.Option{store.WithMaxConns(12)}, 12},
		{url, nil, int32(max(defaultMaxConns, runtime.NumCPU()))},
	} {
		p, err := Open(context.Background(), tc.url, tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Pool().Config().MaxConns; got != tc.want {
			t.Errorf("%s with %d options: MaxConns = %d, want %d", store.RedactURL(tc.url), len(tc.opts), got, tc.want)
		}
		_ = p.Close()
	}
}
