package conversation

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/store/pgstore"
	"github.com/agentgw/agentgw/store/sqlitestore"
)

// benchTurns is the stateful turn of go run ./bench: a conversation of 20
// stored turns, a ~100-byte question and a ~600-byte answer each, added
// by one ADD_MESSAGE.
func benchTurns() []Message {
	answer := "The error handling is mostly right: the row scan's sql.ErrNoRows becomes ErrNotFound and " +
		"other errors are wrapped with the id. " + strings.Repeat("Consider also checking rows.Err after the loop. ", 10)
	var msgs []Message
	for i := range 20 {
		msgs = append(msgs, msg("user", fmt.Sprintf("Question %d: is the error handling in Order and Recent right, and why?", i+1)),
			msg("assistant", answer))
	}
	return msgs
}

// benchBackends are the stores of the benchmarks: backends, on a
// testing.TB.
func benchBackends(b *testing.B) map[string]Backend {
	out := map[string]Backend{"memory": store.NewMemory()}
	s, err := sqlitestore.Open(filepath.Join(b.TempDir(), "s.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	out["sqlite"] = s
	p, err := pgstore.Open(context.Background(), pgtest.Schema(b))
	if err != nil {
		b.Log(err)
		return out
	}
	b.Cleanup(func() { _ = p.Close() })
	out["postgres"] = p
	return out
}

// BenchmarkOpen is what a stateful turn reads before its upstream call:
// Open of a conversation holding 20 turns.
func BenchmarkOpen(b *testing.B) {
	ctx := context.Background()
	for _, name := range []string{"memory", "sqlite", "postgres"} {
		st, ok := benchBackends(b)[name]
		if !ok {
			continue
		}
		r := NewStoreRepo(st, Config{})
		if _, err := r.Create(ctx, "c", alice, nil); err != nil {
			b.Fatal(err)
		}
		if _, err := r.Apply(ctx, "c", alice, Operation{Op: OpAddMessage, Messages: benchTurns()}, 0); err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c, _, err := r.Open(ctx, "c", alice)
				if err != nil || len(c.Messages) != 40 {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchRecord is the stored record of a conversation of 20 turns.
func benchRecord(b *testing.B) []byte {
	ctx := context.Background()
	st := store.NewMemory()
	r := NewStoreRepo(st, Config{})
	if _, err := r.Create(ctx, "c", alice, nil); err != nil {
		b.Fatal(err)
	}
	if _, err := r.Apply(ctx, "c", alice, Operation{Op: OpAddMessage, Messages: benchTurns()}, 0); err != nil {
		b.Fatal(err)
	}
	raw, err := st.Get(ctx, key("c"))
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

// BenchmarkDecodeRecord compares decoding a record of 20 turns with
// encoding/json (as before) and decodeRecord, with and without its change
// log.
func BenchmarkDecodeRecord(b *testing.B) {
	raw := benchRecord(b)
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			var rec record
			if err := json.Unmarshal(raw, &rec); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, withLog := range []bool{true, false} {
		b.Run(fmt.Sprintf("withLog=%t", withLog), func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := decodeRecord(raw, withLog); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
