package usage

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/dbconn"
)

// TestRecorderOutage: a batch the database refuses is written once it
// answers again; while it is down the queue fills and then drops, and
// what was dropped is counted.
func TestRecorderOutage(t *testing.T) {
	st := openStore(t, filepath.Join(t.TempDir(), "usage.db"))
	var down atomic.Bool
	down.Store(true)
	var tries atomic.Int64
	real := st.inTx
	st.inTx = func(ctx context.Context, fn func(tx dbconn.Conn) error) error {
		tries.Add(1)
		if down.Load() {
			return errors.New("database down")
		}
		return real(ctx, fn)
	}
	r := newRecorder(st, 4, 10*time.Millisecond, slog.New(slog.DiscardHandler))
	r.batch = 2
	go r.Run()
	rec := func(i int) entry { return entry{rec: &Record{At: t0, Key: "k", Model: "m", In: int64(i)}} }
	r.Add(rec(1))
	r.Add(rec(2)) // a full batch: written, refused
	for tries.Load() < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	for i := 3; i <= 10; i++ { // the queue holds 4 of them
		r.Add(rec(i))
	}
	if d := r.Dropped(); d != 4 {
		t.Errorf("dropped %d, want 4", d)
	}
	down.Store(false)
	r.Close()
	rows, err := st.Summary(context.Background(), Query{By: ByKey, Since: t0})
	if err != nil {
		t.Fatal(err)
	}
	// 1, 2 and 3..6 written: 6 records.
	if len(rows) != 1 || rows[0].Requests != 6 || rows[0].TokensIn != 1+2+3+4+5+6 {
		t.Errorf("written %+v", rows)
	}
}
