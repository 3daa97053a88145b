package conversation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// nested is an object n deep: {"a":{"a":…{"a":1}}}.
func nested(n int) map[string]any {
	var v any = 1
	for range n {
		v = map[string]any{"a": v}
	}
	return v.(map[string]any)
}

// nestedJSON is nested(n) as JSON, built without recursion.
func nestedJSON(n int) string {
	return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n)
}

// TestIntakeBounds: metadata and states over contexts.maxDepth or
// contexts.maxBytes are refused with nothing written, at every write;
// at the bounds they are kept and read back.
func TestIntakeBounds(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			st := b.open(t)
			r, _ := newRepo(t, st, Config{MaxDepth: 8, MaxBytes: 1024})
			for _, tc := range []struct {
				name string
				do   func() error
				want error
			}{
				{"deep metadata", func() error { _, err := r.Create(ctx, "m", alice, nested(9)); return err }, ErrTooDeep},
				{"deep array metadata", func() error {
					_, err := r.Create(ctx, "m", alice, map[string]any{"a": []any{[]any{[]any{[]any{[]any{[]any{[]any{[]any{1}}}}}}}}})
					return err
				}, ErrTooDeep},
				{"large metadata", func() error {
					_, err := r.Create(ctx, "m", alice, map[string]any{"a": strings.Repeat("x", 1100)})
					return err
				}, ErrTooLarge},
				{"many small metadata fields", func() error {
					m := map[string]any{}
					for i := range 200 {
						m[fmt.Sprint(i)] = ""
					}
					_, err := r.Create(ctx, "m", alice, m)
					return err
				}, ErrTooLarge},
			} {
				if err := tc.do(); !errors.Is(err, tc.want) {
					t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
				}
			}
			if _, err := st.Get(ctx, "context/m"); err == nil {
				t.Error("a refused create was stored")
			}
			// At the bounds: kept, read back, deleted.
			if _, err := r.Create(ctx, "m", alice, nested(8)); err != nil {
				t.Fatalf("metadata 8 deep: %v", err)
			}
			if _, err := r.Apply(ctx, "m", alice, Operation{Op: OpUpdateState, State: nested(8)}, 0); err != nil {
				t.Fatalf("state 8 deep: %v", err)
			}
			if _, err := r.Apply(ctx, "m", alice, Operation{Op: OpUpdateState, State: nested(9)}, 0); !errors.Is(err, ErrTooDeep) {
				t.Errorf("state 9 deep: %v", err)
			}
			// The state and the metadata together count against MaxBytes.
			if _, err := r.Apply(ctx, "m", alice, Operation{Op: OpUpdateState, State: map[string]any{"b": strings.Repeat("y", 1000)}}, 0); !errors.Is(err, ErrTooLarge) {
				t.Errorf("state over maxBytes with the metadata: %v", err)
			}
			// A run's messages whose tool calls nest too deep are refused
			// too, rather than stored unreadable.
			deepCalls := json.RawMessage(strings.Repeat("[", 20) + strings.Repeat("]", 20))
			if _, err := r.Apply(ctx, "m", alice, Operation{Op: OpAddMessage, Messages: []Message{{Role: "assistant", ToolCalls: deepCalls}}}, 0); !errors.Is(err, ErrTooDeep) {
				t.Errorf("deep tool calls: %v", err)
			}
			c, err := r.Get(ctx, "m", alice)
			if err != nil || c.Version != 2 {
				t.Fatalf("Get after the refused writes = %+v, %v; want version 2", c, err)
			}
			if err := r.Delete(ctx, "m", alice, 0); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestBrokenRecord: a record stored before the bounds held (a state 9,998
// deep, which encoding/json cannot decode 3 levels down in the record's
// change log) answers
// ErrUnreadable to its owner, ErrNotFound to others, and can be deleted
// by its owner, checked against its version, without being decoded.
func TestBrokenRecord(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			st := b.open(t)
			r, _ := newRepo(t, st, Config{})
			deep := nestedJSON(9998) // what the old code accepted and stored twice
			raw := `{"context":{"contextId":"x","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:05Z","version":3,"owner":"alice","messages":[],"state":` +
				deep + `,"metadata":{}},"changes":[{"version":3,"at":"2026-01-02T03:04:05Z","operation":"UPDATE_STATE","state":` + deep + `}]}`
			if err := json.Unmarshal([]byte(raw), &record{}); err == nil {
				t.Fatal("the record decodes: the test needs one that does not")
			}
			if err := st.Put(ctx, "context/x", []byte(raw), time.Hour); err != nil {
				t.Fatal(err)
			}
			if _, err := r.Get(ctx, "x", alice); !errors.Is(err, ErrUnreadable) {
				t.Errorf("Get by the owner = %v, want ErrUnreadable", err)
			}
			if _, _, err := r.Open(ctx, "x", alice); !errors.Is(err, ErrUnreadable) {
				t.Errorf("Open by the owner = %v, want ErrUnreadable", err)
			}
			if _, err := r.Get(ctx, "x", bob); !errors.Is(err, ErrNotFound) {
				t.Errorf("Get by another = %v, want ErrNotFound", err)
			}
			if err := r.Delete(ctx, "x", bob, 0); !errors.Is(err, ErrNotFound) {
				t.Errorf("Delete by another = %v, want ErrNotFound", err)
			}
			if err := r.Delete(ctx, "x", alice, 2); !errors.Is(err, ErrConflict) {
				t.Errorf("Delete at a stale version = %v, want ErrConflict", err)
			}
			if err := r.Delete(ctx, "x", alice, 3); err != nil {
				t.Fatalf("Delete by the owner = %v", err)
			}
			if got, err := st.Get(ctx, "context/x"); err != nil || string(got) != `{"deleted":true,"owner":"alice"}` {
				t.Errorf("after Delete the store holds %.80s, %v; want the tombstone", got, err)
			}
			if _, err := r.Get(ctx, "x", alice); !errors.Is(err, ErrNotFound) {
				t.Errorf("Get after Delete = %v, want ErrNotFound", err)
			}
		})
	}
}

// TestIntakeCostFollowsSize: refusing a metadata nested 9,997 deep
// allocates only its error (the check walks what was decoded and stops at
// the limit), and accepting one of many tiny fields allocates in proportion to
// its size.
func TestIntakeCostFollowsSize(t *testing.T) {
	r := NewStoreRepo(nil, Config{})
	deep := nested(9997)
	if a := testing.AllocsPerRun(10, func() {
		if r.checkObject("metadata", deep) == nil {
			t.Fatal("accepted")
		}
	}); a > 16 { // the error's: a constant, not one per level (the race detector adds a few)
		t.Errorf("refusing a deep metadata: %v allocations", a)
	}
	wide := map[string]any{}
	for i := range 10000 {
		wide[fmt.Sprint(i)] = i
	}
	if a := testing.AllocsPerRun(10, func() {
		if r.checkObject("metadata", wide) != nil {
			t.Fatal("refused")
		}
	}); a > 16 { // a constant, not one per field
		t.Errorf("checking 10,000 fields: %v allocations", a)
	}
}

// FuzzReadHead: readHead never panics on any record, and agrees with a
// full decode on the owner and version of every record that decodes.
func FuzzReadHead(f *testing.F) {
	f.Add(`{"context":{"contextId":"c","version":2,"owner":"alice","state":{}}}`)
	f.Add(`{"deleted":true,"owner":"bob"}`)
	f.Add(`{"context":{"owner":"a","state":` + nestedJSON(50) + `}}`)
	f.Add(`{"context":[`)
	f.Fuzz(func(t *testing.T, raw string) {
		h, ok := readHead([]byte(raw))
		var rec record
		if json.Unmarshal([]byte(raw), &rec) != nil || !ok {
			return
		}
		owner := rec.Owner
		var version int64
		if rec.Context != nil {
			owner, version = rec.Context.Owner, rec.Context.Version
		}
		if h.owner != owner || h.version != version && rec.Context != nil || h.deleted != rec.Deleted && rec.Context == nil {
			t.Errorf("readHead(%q) = %+v, decoded owner %q version %d deleted %v", raw, h, owner, version, rec.Deleted)
		}
	})
}

// TestAddManyMessagesBounded: one ADD_MESSAGE of far more than MaxBytes of
// messages stores at most MaxBytes of them, and its change-log entry logs
// only those kept (with how many were dropped), so the stored record stays
// within a small multiple of MaxBytes however large the request.
func TestAddManyMessagesBounded(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			st := b.open(t)
			r, _ := newRepo(t, st, Config{MaxBytes: 1024, MaxMessages: 100000})
			if _, err := r.Create(ctx, "m", alice, nil); err != nil {
				t.Fatal(err)
			}
			msgs := make([]Message, 5000)
			for i := range msgs {
				msgs[i] = Message{Role: "user", Content: fmt.Sprintf("m%04d", i)}
			}
			c, err := r.Apply(ctx, "m", alice, Operation{Op: OpAddMessage, Messages: msgs}, 0)
			if err != nil {
				t.Fatal(err)
			}
			log, err := r.Changes(ctx, "m", alice, 0)
			if err != nil {
				t.Fatal(err)
			}
			last := log.Changes[len(log.Changes)-1]
			if len(last.Messages) != len(c.Messages) || last.Dropped != len(msgs)-len(c.Messages) ||
				last.Messages[len(last.Messages)-1].Content != "m4999" {
				t.Errorf("the entry logs %d messages (dropped %d), the context keeps %d", len(last.Messages), last.Dropped, len(c.Messages))
			}
			raw, err := st.Get(ctx, "context/m")
			if err != nil {
				t.Fatal(err)
			}
			// MaxBytes counts what messages say; each kept message also
			// carries its id, type and time (under 200 bytes).
			if n, bound := len(raw), 3*1024+200*len(c.Messages); n > bound {
				t.Errorf("the stored record is %d bytes for MaxBytes 1024 and %d messages, over %d", n, len(c.Messages), bound)
			}
		})
	}
}

// TestAddManyMessagesCost: the work of one ADD_MESSAGE follows what the
// context can keep, not the request's length: ids are made only for the
// messages kept, and 100,000 messages each naming its own messageId are
// checked for duplicates in one pass (not each against every other).
func TestAddManyMessagesCost(t *testing.T) {
	var made int
	r := NewStoreRepo(backends[0].open(t), Config{MaxBytes: 1024, MaxMessages: 50, NewID: func() string { made++; return fmt.Sprint("id", made) }})
	ctx := context.Background()
	if _, err := r.Create(ctx, "m", alice, nil); err != nil {
		t.Fatal(err)
	}
	unnamed := make([]Message, 100000)
	for i := range unnamed {
		unnamed[i] = Message{Role: "user", Content: "x"}
	}
	c, err := r.Apply(ctx, "m", alice, Operation{Op: OpAddMessage, Messages: unnamed}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Messages) != 50 || made != 50 {
		t.Errorf("kept %d messages, made %d ids; want 50 and 50", len(c.Messages), made)
	}
	named := make([]Message, 100000)
	for i := range named {
		named[i] = Message{Role: "user", Content: "x", ID: fmt.Sprint("client-", i)}
	}
	named[len(named)-2].ID = named[len(named)-1].ID // a duplicate among those kept
	if _, err := r.Apply(ctx, "m", alice, Operation{Op: OpAddMessage, Messages: named}, 0); !errors.Is(err, ErrBadOperation) {
		t.Errorf("two kept messages of one id: %v", err)
	}
	log, err := r.Changes(ctx, "m", alice, 0)
	if err != nil {
		t.Fatal(err)
	}
	if last := log.Changes[len(log.Changes)-1]; len(last.Messages) != 50 || last.Dropped != 100000-50 {
		t.Errorf("the entry logs %d messages, dropped %d", len(last.Messages), last.Dropped)
	}
}
