package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/handoff/queue"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/internal/cputime"
	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/keys"
	"github.com/agentgw/agentgw/store/pgstore"
	"github.com/agentgw/agentgw/store/sqlitestore"
)

// BenchmarkKeyedDelivery: b.N NOTIFICATIONs to a2 (a reply: no model),
// each in a task of its own, submitted then delivered, by a caller with
// no key and by one with a stored key, whose every delivery reads the key
// (keys.Store.LookupID on a real store of the same database kind). It
// reports the process's CPU time per message (user and system: on
// PostgreSQL the server's own CPU is not in it) and the key reads per
// message.
func BenchmarkKeyedDelivery(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		for _, keyed := range []bool{false, true} {
			name := backend + "/nokey"
			if keyed {
				name = backend + "/key"
			}
			b.Run(name, func(b *testing.B) { benchKeyedDelivery(b, backend, keyed) })
		}
	}
}

func benchKeyedDelivery(b *testing.B, backend string, keyed bool) {
	ctx := context.Background()
	var db string
	var ks *keys.Store
	if backend == "sqlite" {
		st, err := sqlitestore.Open(filepath.Join(b.TempDir(), "keys.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = st.Close() })
		if ks, err = keys.NewSQLite(ctx, st.DB(), keys.Options{ReadDB: st.ReadDB()}); err != nil {
			b.Fatal(err)
		}
	} else {
		db = pgtest.Schema(b)
		st, err := pgstore.Open(ctx, db)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = st.Close() })
		if ks, err = keys.NewPostgres(ctx, st.Pool(), keys.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	k, _, err := ks.Create(ctx, keys.Key{User: "carol", Agents: []string{"*"}}, access.Operator)
	if err != nil {
		b.Fatal(err)
	}
	var reads atomic.Int64
	check := func(ctx context.Context, id string) (bool, error) {
		reads.Add(1)
		_, live, err := ks.LookupID(ctx, id)
		return live, err
	}
	h := newHubWith(b, db, scopeAgents, Config{Keys: check}, queue.Config{})
	who := access.Caller{Owner: access.MemberOwner("carol")}
	if keyed {
		who = k.Caller()
	}
	msgs := make([][]byte, b.N)
	zero := 0
	for i := range msgs {
		msg, err := handoff.New(time.Now(), "bench", handoff.Recipients{"a2"}, handoff.Notification,
			map[string]any{"event_type": "build", "message": "hi"}, handoff.Origin{TaskID: fmt.Sprintf("bench-%d", i)})
		if err != nil {
			b.Fatal(err)
		}
		msg.Instructions.FailureHandling = &handoff.FailureHandlingStrategy{RetryCount: &zero}
		msg.Fill(time.Now())
		if msgs[i], err = json.Marshal(msg); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	cpu := cputime.Process()
	ids := make([]string, b.N)
	for i, raw := range msgs {
		st, _, err := h.Submit(ctx, who, raw)
		if err != nil {
			b.Fatal(err)
		}
		ids[i] = st.MessageID
	}
	for {
		stats, err := h.queue.Stats(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if stats[0].Count+stats[1].Count == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	used := cputime.Process() - cpu
	b.StopTimer()
	for _, id := range []string{ids[0], ids[len(ids)-1]} {
		if rec, err := h.queue.Get(ctx, id); err != nil || rec.Status != queue.StatusCompleted {
			b.Fatalf("message %s: %+v, %v", id, rec, err)
		}
	}
	b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/msg")
	b.ReportMetric(float64(reads.Load())/float64(b.N), "keyreads/msg")
}
