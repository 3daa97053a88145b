package conversation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/pgtest"
	"github.com/agentgw/agentgw/internal/testclock"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/store/pgstore"
	"github.com/agentgw/agentgw/store/sqlitestore"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// backends are the stores every case runs on.
var backends = []struct {
	name string
	open func(t *testing.T) Backend
}{
	{"memory", func(t *testing.T) Backend { return store.NewMemory() }},
	{"sqlite", func(t *testing.T) Backend {
		s, err := sqlitestore.Open(filepath.Join(t.TempDir(), "s.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}},
	{"postgres", func(t *testing.T) Backend {
		s, err := pgstore.Open(context.Background(), pgtest.Schema(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}},
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func newRepo(t *testing.T, b Backend, cfg Config) (*StoreRepo, *testclock.Clock) {
	c := testclock.New(t0)
	var n int
	cfg.NewID = func() string { n++; return fmt.Sprintf("m%d", n) }
	r := NewStoreRepo(b, cfg)
	r.now = c.Now
	return r, c
}

// step is one call of a case; want is the context (or change log) after
// it as JSON, or err the error.
type step struct {
	do     string // create, open, get, apply, delete, changes, record (the stored bytes)
	id     string
	owner  string
	op     Operation
	expect int64
	since  int64
	err    error
	want   string
}

const alice, bob = "alice", "bob"

func msg(role, content string) Message { return Message{Role: role, Content: content} }

func TestRepo(t *testing.T) {
	cases := []struct {
		name  string
		cfg   Config
		steps []step
	}{
		{"create and get", Config{}, []step{
			{do: "create", id: "c1", owner: alice},
			{do: "get", id: "c1", owner: alice, want: `{"contextId":"c1","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:05Z","version":1,"owner":"alice","messages":[],"state":{},"metadata":{}}`},
		}},
		{"create taken", Config{}, []step{
			{do: "create", id: "c1", owner: alice},
			{do: "create", id: "c1", owner: alice, err: ErrExists},
			{do: "create", id: "c1", owner: bob, err: ErrNotFound},
		}},
		{"open creates once", Config{}, []step{
			{do: "open", id: "c1", owner: alice, want: "created"},
			{do: "open", id: "c1", owner: alice, want: "opened"},
			{do: "open", id: "c1", owner: bob, err: ErrNotFound},
		}},
		{"foreign", Config{}, []step{
			{do: "create", id: "c1", owner: alice},
			{do: "get", id: "c1", owner: bob, err: ErrNotFound},
			{do: "apply", id: "c1", owner: bob, op: Operation{Op: OpClearHistory}, err: ErrNotFound},
			{do: "delete", id: "c1", owner: bob, err: ErrNotFound},
			{do: "changes", id: "c1", owner: bob, err: ErrNotFound},
		}},
		{"missing", Config{}, []step{{do: "get", id: "nope", owner: alice, err: ErrNotFound}}},
		{"bad ids", Config{}, []step{
			{do: "get", id: "a/b", owner: alice, err: ErrBadID},
			{do: "create", id: string(make([]byte, 129)), owner: alice, err: ErrBadID},
			{do: "open", id: "a b", owner: alice, err: ErrBadID},
		}},
		{"update state merges and bumps", Config{}, []step{
			{do: "create", id: "c1", owner: alice},
			{do: "apply", id: "c1", owner: alice, expect: 1, op: Operation{Op: OpUpdateState, State: map[string]any{"a": 1.0, "o": map[string]any{"x": 1.0, "y": 2.0}}}},
			{do: "apply", id: "c1", owner: alice, expect: 2, op: Operation{Op: OpUpdateState, State: map[string]any{"a": nil, "b": "B", "o": map[string]any{"y": 3.0}}}},
			{do: "get", id: "c1", owner: alice, want: `{"contextId":"c1","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:07Z","version":3,"owner":"alice","messages":[],"state":{"b":"B","o":{"x":1,"y":3}},"metadata":{}}`},
		}},
		{"stale version conflicts and writes nothing", Config{}, []step{
			{do: "create", id: "c1", owner: alice},
			{do: "apply", id: "c1", owner: alice, expect: 1, op: Operation{Op: OpUpdateState, State: map[string]any{"a": 1.0}}},
			{do: "apply", id: "c1", owner: alice, expect: 1, op: Operation{Op: OpUpdateState, State: map[string]any{"a": 2.0}}, err: ErrConflict},
			{do: "apply", id: "c1", owner: alice, expect: 7, op: Operation{Op: OpClearHistory}, err: ErrConflict},
			{do: "delete", id: "c1", owner: alice, expect: 1, err: ErrConflict},
			{do: "get", id: "c1", owner: alice, want: `{"contextId":"c1","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:06Z","version":2,"owner":"alice","messages":[],"state":{"a":1},"metadata":{}}`},
		}},
		{"bad operations", Config{}, []step{
			{do: "create", id: "c1", owner: alice},
			{do: "apply", id: "c1", owner: alice, op: Operation{Op: "NOPE"}, err: ErrBadOperation},
			{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpUpdateState}, err: ErrBadOperation},
			{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpDelete}, err: ErrBadOperation},
		}},
		{"deleted ids stay taken", Config{}, []step{
			{do: "create", id: "c1", owner: alice},
			{do: "delete", id: "c1", owner: alice, expect: 1},
			{do: "get", id: "c1", owner: alice, err: ErrNotFound},
			{do: "delete", id: "c1", owner: alice, err: ErrNotFound},
			{do: "create", id: "c1", owner: alice, err: ErrNotFound},
			{do: "open", id: "c1", owner: alice, err: ErrNotFound},
			{do: "open", id: "c1", owner: bob, err: ErrNotFound},
			{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpClearHistory}, err: ErrNotFound},
		}},
		{"limits drop the oldest messages", Config{MaxMessages: 3, MaxBytes: 40}, []step{ // sizes: role+content bytes
			{do: "create", id: "c1", owner: alice},
			{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpAddMessage, Messages: []Message{msg("user", "one"), msg("assistant", "two")}}},
			{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpAddMessage, Messages: []Message{msg("user", "three"), msg("assistant", "four")}}},
			{do: "get", id: "c1", owner: alice, want: `{"contextId":"c1","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:07Z","version":3,"owner":"alice","messages":[{"role":"assistant","content":"two"},{"role":"user","content":"three"},{"role":"assistant","content":"four"}],"state":{},"metadata":{}}`},
			{do: "changes", id: "c1", owner: alice, since: 2, want: `{"contextId":"c1","version":3,"changes":[{"version":3,"at":"2026-01-02T03:04:07Z","operation":"ADD_MESSAGE","messages":[{"role":"user","content":"three"},{"role":"assistant","content":"four"}],"dropped":1}],"truncated":false}`},
			{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpAddMessage, Messages: []Message{msg("user", "a message of thirty bytes....")}}},
			{do: "changes", id: "c1", owner: alice, since: 3, want: `{"contextId":"c1","version":4,"changes":[{"version":4,"at":"2026-01-02T03:04:10Z","operation":"ADD_MESSAGE","messages":[{"role":"user","content":"a message of thirty bytes...."}],"dropped":3}],"truncated":false}`},
			{do: "get", id: "c1", owner: alice, want: `{"contextId":"c1","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:10Z","version":4,"owner":"alice","messages":[{"role":"user","content":"a message of thirty bytes...."}],"state":{},"metadata":{}}`},
		}},
		{"state over the limit writes nothing", Config{MaxBytes: 20}, []step{
			{do: "create", id: "c1", owner: alice},
			{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpUpdateState, State: map[string]any{"a": "0123456789"}}},
			{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpUpdateState, State: map[string]any{"b": "x"}}, err: ErrTooLarge},
			{do: "get", id: "c1", owner: alice, want: `{"contextId":"c1","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:06Z","version":2,"owner":"alice","messages":[],"state":{"a":"0123456789"},"metadata":{}}`},
		}},
		{"change log bounded by bytes", Config{MaxBytes: 150}, []step{
			{do: "create", id: "c1", owner: alice},
			{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpAddMessage, Messages: []Message{msg("user", "0123456789012345678901234567890123456789")}}},
			{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpAddMessage, Messages: []Message{msg("user", "abcdefghijabcdefghijabcdefghijabcdefghij")}}},
			{do: "changes", id: "c1", owner: alice, since: 0, want: `{"contextId":"c1","version":3,"changes":[{"version":3,"at":"2026-01-02T03:04:07Z","operation":"ADD_MESSAGE","messages":[{"role":"user","content":"abcdefghijabcdefghijabcdefghijabcdefghij"}]}],"truncated":true}`},
		}},
		{"clear history keeps state", Config{}, []step{
			{do: "create", id: "c1", owner: alice},
			{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpAddMessage, Messages: []Message{msg("user", "hi")}}},
			{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpUpdateState, State: map[string]any{"k": true}}},
			{do: "apply", id: "c1", owner: alice, expect: 3, op: Operation{Op: OpClearHistory}},
			{do: "get", id: "c1", owner: alice, want: `{"contextId":"c1","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:08Z","version":4,"owner":"alice","messages":[],"state":{"k":true},"metadata":{}}`},
		}},
		{"change log and truncation", Config{MaxChanges: 2}, []step{
			{do: "create", id: "c1", owner: alice},
			{do: "changes", id: "c1", owner: alice, since: 0, want: `{"contextId":"c1","version":1,"changes":[{"version":1,"at":"2026-01-02T03:04:05Z","operation":"CREATE"}],"truncated":false}`},
			{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpUpdateState, State: map[string]any{"a": 1.0}}},
			{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpClearHistory}},
			{do: "changes", id: "c1", owner: alice, since: 2, want: `{"contextId":"c1","version":3,"changes":[{"version":3,"at":"2026-01-02T03:04:08Z","operation":"CLEAR_HISTORY"}],"truncated":false}`},
			{do: "changes", id: "c1", owner: alice, since: 0, want: `{"contextId":"c1","version":3,"changes":[{"version":2,"at":"2026-01-02T03:04:07Z","operation":"UPDATE_STATE","state":{"a":1}},{"version":3,"at":"2026-01-02T03:04:08Z","operation":"CLEAR_HISTORY"}],"truncated":true}`},
			{do: "changes", id: "c1", owner: alice, since: 3, want: `{"contextId":"c1","version":3,"changes":[],"truncated":false}`},
		}},
		{"seed operations", Config{}, seedOperations},
	}
	ctx := context.Background()
	for _, b := range backends {
		for _, tc := range cases {
			t.Run(b.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				st := b.open(t)
				r, clock := newRepo(t, st, tc.cfg)
				for i, s := range tc.steps {
					var got any
					var err error
					switch s.do {
					case "create":
						_, err = r.Create(ctx, s.id, s.owner, nil)
					case "open":
						var created bool
						_, created, err = r.Open(ctx, s.id, s.owner)
						got = map[bool]string{true: "created", false: "opened"}[created]
					case "get":
						got, err = r.Get(ctx, s.id, s.owner)
					case "apply":
						_, err = r.Apply(ctx, s.id, s.owner, s.op, s.expect)
					case "delete":
						err = r.Delete(ctx, s.id, s.owner, s.expect)
					case "changes":
						got, err = r.Changes(ctx, s.id, s.owner, s.since)
					case "record":
						var raw []byte
						raw, err = st.Get(ctx, key(s.id))
						got = string(raw)
					}
					clock.Advance(time.Second)
					if !errors.Is(err, s.err) {
						t.Fatalf("step %d %s: err = %v, want %v", i, s.do, err, s.err)
					}
					if s.want == "" || err != nil {
						continue
					}
					data, _ := json.Marshal(got)
					if str, ok := got.(string); ok {
						data = []byte(str)
					}
					if string(data) != s.want {
						t.Fatalf("step %d %s:\n got %s\nwant %s", i, s.do, data, s.want)
					}
				}
			})
		}
	}
}

// TestConcurrentWriters: writers on two repos over one store all write
// from version 1; exactly one succeeds, the others conflict.
func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			st := b.open(t)
			r1, _ := newRepo(t, st, Config{})
			r2, _ := newRepo(t, st, Config{})
			if _, err := r1.Create(ctx, "c1", alice, nil); err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			results := map[error]int{}
			var wg sync.WaitGroup
			start := make(chan struct{})
			for w := range 8 {
				r := []*StoreRepo{r1, r2}[w%2]
				wg.Go(func() {
					<-start
					_, err := r.Apply(ctx, "c1", alice, Operation{Op: OpUpdateState, State: map[string]any{"w": float64(w)}}, 1)
					mu.Lock()
					results[err]++
					mu.Unlock()
				})
			}
			close(start)
			wg.Wait()
			if results[nil] != 1 || results[ErrConflict] != 7 {
				t.Fatalf("results %v, want one success and seven conflicts", results)
			}
			c, err := r1.Get(ctx, "c1", alice)
			if err != nil || c.Version != 2 {
				t.Fatalf("Get = %+v, %v; want version 2", c, err)
			}
		})
	}
}

// TestStoredRecord pins the bytes the store holds for a context and for
// a deleted id: what replicas of other versions read.
func TestStoredRecord(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	r, _ := newRepo(t, st, Config{})
	if _, err := r.Create(ctx, "c1", alice, map[string]any{"k": "v"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Apply(ctx, "c1", alice, Operation{Op: OpAddMessage, Messages: []Message{{Role: "assistant", Content: "x", ToolCalls: json.RawMessage(`[{"id":"1"}]`)}}}, 1); err != nil {
		t.Fatal(err)
	}
	got, err := st.Get(ctx, "context/c1")
	want := `{"context":{"contextId":"c1","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:05Z","version":2,"owner":"alice","messages":[{"role":"assistant","content":"x","toolCalls":[{"id":"1"}]}],"state":{},"metadata":{"k":"v"}},` +
		`"changes":[{"version":1,"at":"2026-01-02T03:04:05Z","operation":"CREATE"},{"version":2,"at":"2026-01-02T03:04:05Z","operation":"ADD_MESSAGE","messages":[{"role":"assistant","content":"x","toolCalls":[{"id":"1"}]}]}],` +
		`"messageMeta":[{"id":"m1","type":"MODEL_RESPONSE","time":"2026-01-02T03:04:05Z"}]}`
	if err != nil || string(got) != want {
		t.Fatalf("stored %s, %v\nwant %s", got, err, want)
	}
	if err := r.Delete(ctx, "c1", alice, 2); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Get(ctx, "context/c1"); err != nil || string(got) != `{"deleted":true,"owner":"alice"}` {
		t.Fatalf("tombstone %s, %v", got, err)
	}
}

func at(sec int) *time.Time {
	t := t0.Add(time.Duration(sec) * time.Second)
	return &t
}

// seedOperations are the seed's operations (seed 000 section 8.2) on a
// repo: a value set at a dotted path (missing objects made, an array
// indexed within its bounds, else ErrBadPath), CLEAR_HISTORY before a
// time, messages with the ids and times kept beside them in the record.
var seedOperations = []step{
	{do: "create", id: "c1", owner: alice},
	{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpAddMessage, Messages: []Message{msg("user", "hi")}}},
	{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpAddMessage, Messages: []Message{{Role: "assistant", Content: "hello", ID: "msg_002", Type: TypeModelResponse}}}},
	{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpUpdateState, State: map[string]any{
		"userPreferences": map[string]any{"language": "中文", "timezone": "Asia/Shanghai"}, "list": []any{1.0, map[string]any{"x": 1.0}}, "s": "str"}}},
	{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpUpdateState, Path: "userPreferences.language", Value: json.RawMessage(`"英文"`)}},
	{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpUpdateState, Path: "new.deep.key", Value: json.RawMessage(`1`)}},
	{do: "apply", id: "c1", owner: alice, expect: 6, op: Operation{Op: OpUpdateState, Path: "list.1.x", Value: json.RawMessage(`[2]`)}},
	{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpUpdateState, Path: "list.2", Value: json.RawMessage(`0`)}, err: ErrBadPath},
	{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpUpdateState, Path: "list.01", Value: json.RawMessage(`0`)}, err: ErrBadPath},
	{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpUpdateState, Path: "s.x", Value: json.RawMessage(`0`)}, err: ErrBadPath},
	{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpUpdateState, Path: "new.deep", Value: json.RawMessage(`null`)}},
	{do: "apply", id: "c1", owner: alice, expect: 7, op: Operation{Op: OpClearHistory, Before: at(2)}, err: ErrConflict},
	{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpClearHistory, Before: at(2)}},
	{do: "apply", id: "c1", owner: alice, op: Operation{Op: OpAddMessage, Messages: []Message{{Role: "user", Content: "again", ID: "msg_002"}}}, err: ErrBadOperation},
	{do: "get", id: "c1", owner: alice, want: `{"contextId":"c1","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:17Z","version":9,"owner":"alice",` +
		`"messages":[{"role":"assistant","content":"hello"}],` +
		`"state":{"list":[1,{"x":[2]}],"new":{},"s":"str","userPreferences":{"language":"英文","timezone":"Asia/Shanghai"}},"metadata":{}}`},
	{do: "record", id: "c1", want: `{"context":{"contextId":"c1","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:17Z","version":9,"owner":"alice",` +
		`"messages":[{"role":"assistant","content":"hello"}],` +
		`"state":{"list":[1,{"x":[2]}],"new":{},"s":"str","userPreferences":{"language":"英文","timezone":"Asia/Shanghai"}},"metadata":{}},` +
		`"changes":[{"version":1,"at":"2026-01-02T03:04:05Z","operation":"CREATE"},` +
		`{"version":2,"at":"2026-01-02T03:04:06Z","operation":"ADD_MESSAGE","messages":[{"role":"user","content":"hi"}]},` +
		`{"version":3,"at":"2026-01-02T03:04:07Z","operation":"ADD_MESSAGE","messages":[{"role":"assistant","content":"hello"}]},` +
		`{"version":4,"at":"2026-01-02T03:04:08Z","operation":"UPDATE_STATE","state":{"list":[1,{"x":1}],"s":"str","userPreferences":{"language":"中文","timezone":"Asia/Shanghai"}}},` +
		`{"version":5,"at":"2026-01-02T03:04:09Z","operation":"UPDATE_STATE","path":"userPreferences.language","value":"英文"},` +
		`{"version":6,"at":"2026-01-02T03:04:10Z","operation":"UPDATE_STATE","path":"new.deep.key","value":1},` +
		`{"version":7,"at":"2026-01-02T03:04:11Z","operation":"UPDATE_STATE","path":"list.1.x","value":[2]},` +
		`{"version":8,"at":"2026-01-02T03:04:15Z","operation":"UPDATE_STATE","path":"new.deep","value":null},` +
		`{"version":9,"at":"2026-01-02T03:04:17Z","operation":"CLEAR_HISTORY","beforeTimestamp":"2026-01-02T03:04:07Z"}],` +
		`"messageMeta":[{"id":"msg_002","type":"MODEL_RESPONSE","time":"2026-01-02T03:04:07Z"}]}`},
}

// TestMessageIDsAcrossReplicas: a message's id and time are made once, at
// write, and kept: another repo on the same store (another replica) reads
// the same, and a later write keeps them.
func TestMessageIDsAcrossReplicas(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	r1 := NewStoreRepo(st, Config{})
	r2 := NewStoreRepo(st, Config{})
	if _, err := r1.Create(ctx, "c1", alice, nil); err != nil {
		t.Fatal(err)
	}
	c1, err := r1.Apply(ctx, "c1", alice, Operation{Op: OpAddMessage, Messages: []Message{msg("user", "a"), msg("assistant", "b")}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r2.Apply(ctx, "c1", alice, Operation{Op: OpUpdateState, State: map[string]any{"k": 1.0}}, 0); err != nil {
		t.Fatal(err)
	}
	c2, err := r2.Get(ctx, "c1", alice)
	if err != nil {
		t.Fatal(err)
	}
	seed := func(c *Context) string { data, _ := json.Marshal(Seed(c).Messages); return string(data) }
	if seed(c1) != seed(c2) || c1.Messages[0].ID == "" || c1.Messages[0].ID == c1.Messages[1].ID || c1.Messages[0].Time.IsZero() {
		t.Fatalf("written %s\nread by another replica %s", seed(c1), seed(c2))
	}
	_, err = r1.Apply(ctx, "c1", alice, Operation{Op: OpAddMessage, Messages: []Message{{Role: "user", ID: "x"}, {Role: "user", ID: "x"}}}, 0)
	if !errors.Is(err, ErrBadOperation) {
		t.Fatalf("two messages of one id: %v", err)
	}

	// A record written before messages had ids: they get theirs, kept, at
	// the next change, and no time.
	legacy := `{"context":{"contextId":"old","createdAt":"2026-01-02T03:04:05Z","updatedAt":"2026-01-02T03:04:05Z","version":2,"owner":"alice","messages":[{"role":"user","content":"a"}],"state":{},"metadata":{}}}`
	if err := st.Put(ctx, "context/old", []byte(legacy), time.Hour); err != nil {
		t.Fatal(err)
	}
	r3, _ := newRepo(t, st, Config{})
	if _, err := r3.Apply(ctx, "old", alice, Operation{Op: OpAddMessage, Messages: []Message{msg("assistant", "b")}}, 2); err != nil {
		t.Fatal(err)
	}
	c, err := r2.Get(ctx, "old", alice)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := seed(c), `[{"messageId":"m2","type":"USER_INPUT","content":{"text":"a"}},{"messageId":"m1","type":"MODEL_RESPONSE","timestamp":"2026-01-02T03:04:05Z","content":{"text":"b"}}]`; got != want {
		t.Fatalf("a legacy record after a change: %s\nwant %s", got, want)
	}
}
