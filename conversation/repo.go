package conversation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/uuid"

	"github.com/agentgw/agentgw/store"
)

// Repo is where contexts are kept. Every method takes the caller's owner
// identity: a context of another owner is ErrNotFound, as is a deleted
// one. expect, where a method takes it, is the version the caller read; 0
// checks nothing. A write whose expect is not the stored version is
// ErrConflict and writes nothing.
type Repo interface {
	// Create makes a context; id "" makes a UUID. A taken id is ErrExists
	// (the caller's) or ErrNotFound (another's, or deleted).
	Create(ctx context.Context, id, owner string, metadata map[string]any) (*Context, error)
	// Open returns the context, creating it (and reporting so) when the id
	// is free: a request naming a new id of its own choosing.
	Open(ctx context.Context, id, owner string) (c *Context, created bool, err error)
	// Get returns the context.
	Get(ctx context.Context, id, owner string) (*Context, error)
	// Apply applies op and returns the context after it.
	Apply(ctx context.Context, id, owner string, op Operation, expect int64) (*Context, error)
	// Delete deletes the context; its id stays taken until the TTL.
	Delete(ctx context.Context, id, owner string, expect int64) error
	// Changes returns the change log after version since.
	Changes(ctx context.Context, id, owner string, since int64) (*Changes, error)
}

// Backend is what StoreRepo needs of a store: every backend of package
// store is one.
type Backend interface {
	store.Store
	store.Swapper
}

// StoreRepo is a Repo on a store: each context is one record (the
// context, its change log, or a tombstone) under "context/<id>", written
// with Swap from the bytes it read, so of two concurrent writers, even on
// different replicas, one wins and the other re-reads, and then, if it
// named a version, conflicts.
type StoreRepo struct {
	st    Backend
	cfg   Config
	now   func() time.Time
	newID func() string
}

var _ Repo = (*StoreRepo)(nil)

// NewStoreRepo returns a Repo on st bounded by cfg.
func NewStoreRepo(st Backend, cfg Config) *StoreRepo {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	newID := cfg.NewID
	if newID == nil {
		newID = func() string { return "msg_" + uuid.NewString() }
	}
	return &StoreRepo{st: st, cfg: cfg.withDefaults(), now: now, newID: newID}
}

// record is what the store holds for an id.
type record struct {
	Deleted bool     `json:"deleted,omitempty"`
	Context *Context `json:"context,omitempty"`
	Changes []Change `json:"changes,omitempty"`
	// Owner of a tombstone.
	Owner string `json:"owner,omitempty"`
	// Meta is the seed's fields of the context's messages, one for each
	// (the messages' shape stays the one clients and older replicas
	// know); a record written before has none.
	Meta []messageMeta `json:"messageMeta,omitempty"`
	// broken: the record did not decode; only its head was read
	// (readHead), so it can be told apart and deleted, never used.
	broken bool
}

// messageMeta is what a record keeps of a message beside its shape.
type messageMeta struct {
	ID   string    `json:"id"`
	Type string    `json:"type,omitempty"`
	Time time.Time `json:"time,omitzero"`
}

// attachMeta gives rec's messages the seed's fields the record keeps.
func (rec *record) attachMeta() {
	if rec.Context == nil {
		return
	}
	for i := range min(len(rec.Meta), len(rec.Context.Messages)) {
		m := &rec.Context.Messages[i]
		m.ID, m.Type, m.Time = rec.Meta[i].ID, rec.Meta[i].Type, rec.Meta[i].Time
	}
	rec.Meta = nil
}

// keepMeta sets rec.Meta from its messages, giving each that has none an
// id and a type (a message kept before ids were).
func (r *StoreRepo) keepMeta(rec *record) {
	rec.Meta = nil
	if rec.Context == nil || len(rec.Context.Messages) == 0 {
		return
	}
	rec.Meta = make([]messageMeta, len(rec.Context.Messages))
	for i := range rec.Context.Messages {
		m := &rec.Context.Messages[i]
		if m.ID == "" {
			m.ID = r.newID()
		}
		if m.Type == "" {
			m.Type = TypeOf(m.Role)
		}
		rec.Meta[i] = messageMeta{ID: m.ID, Type: m.Type, Time: m.Time}
	}
}

func key(id string) string { return "context/" + id }

// maxSwaps bounds the retries of a write losing to other writers.
const maxSwaps = 16

// load reads id's record: raw nil when there is none. Only Apply and
// Changes need the change log (withLog); without it the log is skipped,
// not decoded, and rec.Changes is nil.
func (r *StoreRepo) load(ctx context.Context, id string, withLog bool) (raw []byte, rec *record, err error) {
	if !ValidID(id) {
		return nil, nil, ErrBadID
	}
	raw, err = r.st.Get(ctx, key(id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading context %s: %w", id, err)
	}
	if rec, err = decodeRecord(raw, withLog); err != nil {
		h, ok := readHead(raw)
		if !ok {
			return nil, nil, fmt.Errorf("decoding context %s: %w: %w", id, ErrUnreadable, err)
		}
		rec = &record{broken: true, Deleted: h.deleted, Owner: h.owner}
		if !h.deleted {
			rec.Context = &Context{ID: id, Owner: h.owner, Version: h.version}
		}
	}
	rec.attachMeta()
	return raw, rec, nil
}

// recordView is a record without its change log, which reading a
// context does not need: decoding skips it.
type recordView struct {
	Deleted bool          `json:"deleted,omitempty"`
	Context *Context      `json:"context,omitempty"`
	Owner   string        `json:"owner,omitempty"`
	Meta    []messageMeta `json:"messageMeta,omitempty"`
}

// decodeOptions make decoding a record accept what encoding/json's
// Unmarshal accepted: every record a release stored decodes to what
// encoding/json made of it (FuzzDecodeRecord), and so do repeated
// members, bytes that are not UTF-8 and members of another case
// (TestDecodeRecordAsEncodingJSON). Times are parsed by time.Time's own
// UnmarshalJSON, as encoding/json parsed them. A record that no longer
// decodes (a member repeated with values of two types) is read as broken.
var decodeOptions = jsonv2.JoinOptions(
	jsontext.AllowDuplicateNames(true),
	jsontext.AllowInvalidUTF8(true),
	jsonv2.MatchCaseInsensitiveNames(true),
	jsonv2.WithUnmarshalers(jsonv2.UnmarshalFunc(func(data []byte, t *time.Time) error { return t.UnmarshalJSON(data) })),
)

// decodeRecord decodes a stored record, its change log only withLog. It
// decodes with encoding/json/v2's implementation (go-json-experiment, the
// same package the standard library carries behind GOEXPERIMENT=jsonv2),
// about five times faster than encoding/json on a record of 20 turns
// (BenchmarkDecodeRecord): a stateful turn decodes one before its model
// call. Records are still encoded by encoding/json (write), in the shape
// older releases read.
func decodeRecord(raw []byte, withLog bool) (*record, error) {
	if withLog {
		rec := &record{}
		if err := jsonv2.Unmarshal(raw, rec, decodeOptions); err != nil {
			return nil, err
		}
		return rec, nil
	}
	var v recordView
	if err := jsonv2.Unmarshal(raw, &v, decodeOptions); err != nil {
		return nil, err
	}
	return &record{Deleted: v.Deleted, Context: v.Context, Owner: v.Owner, Meta: v.Meta}, nil
}

// owned returns rec's context when owner may see it, even when the
// record is broken (only its head was read).
func owned(rec *record, owner string) (*Context, error) {
	if rec == nil || rec.Deleted || rec.Context == nil || rec.Context.Owner != owner {
		return nil, ErrNotFound
	}
	return rec.Context, nil
}

// live returns rec's context when owner may see and use it: a broken
// record of owner's is ErrUnreadable.
func live(rec *record, owner string) (*Context, error) {
	c, err := owned(rec, owner)
	if err == nil && rec.broken {
		return nil, fmt.Errorf("context %s: %w", c.ID, ErrUnreadable)
	}
	return c, err
}

// write swaps rec in for old; false when another writer came first.
func (r *StoreRepo) write(ctx context.Context, id string, old []byte, rec *record) (bool, error) {
	r.keepMeta(rec)
	data, err := json.Marshal(rec)
	rec.Meta = nil
	if err != nil {
		return false, fmt.Errorf("encoding context %s: %w", id, err)
	}
	// What is written can be read back: the intake checks bound the state
	// and metadata; this bounds the rest (messages' tool calls).
	if d := jsonDepth(data); d > r.cfg.MaxDepth+recordLevels {
		return false, fmt.Errorf("%w: context %s would be stored %d levels deep (contexts.maxDepth %d)", ErrTooDeep, id, d, r.cfg.MaxDepth)
	}
	ok, err := r.st.Swap(ctx, key(id), old, data, r.cfg.TTL)
	if err != nil {
		return false, fmt.Errorf("writing context %s: %w", id, err)
	}
	return ok, nil
}

// Create implements Repo.
func (r *StoreRepo) Create(ctx context.Context, id, owner string, metadata map[string]any) (*Context, error) {
	if id == "" {
		id = uuid.NewString()
	}
	if err := r.checkObject("metadata", metadata); err != nil {
		return nil, err
	}
	if err := r.checkSize(&Context{Metadata: metadata}); err != nil {
		return nil, err
	}
	c, created, err := r.open(ctx, id, owner, metadata)
	if err == nil && !created {
		return nil, ErrExists
	}
	return c, err
}

// Open implements Repo.
func (r *StoreRepo) Open(ctx context.Context, id, owner string) (*Context, bool, error) {
	return r.open(ctx, id, owner, nil)
}

func (r *StoreRepo) open(ctx context.Context, id, owner string, metadata map[string]any) (*Context, bool, error) {
	for range maxSwaps {
		raw, rec, err := r.load(ctx, id, false)
		if err != nil {
			return nil, false, err
		}
		if rec != nil {
			c, err := live(rec, owner)
			return c, false, err
		}
		now := r.now().UTC()
		if metadata == nil {
			metadata = map[string]any{}
		}
		c := &Context{ID: id, CreatedAt: now, UpdatedAt: now, Version: 1, Owner: owner,
			Messages: []Message{}, State: map[string]any{}, Metadata: metadata}
		rec = &record{Context: c, Changes: []Change{{Version: 1, At: now, Operation: OpCreate}}}
		ok, err := r.write(ctx, id, raw, rec)
		if err != nil {
			return nil, false, err
		}
		if ok {
			return c, true, nil
		}
	}
	return nil, false, fmt.Errorf("creating context %s: %w", id, ErrConflict)
}

// Get implements Repo.
func (r *StoreRepo) Get(ctx context.Context, id, owner string) (*Context, error) {
	_, rec, err := r.load(ctx, id, false)
	if err != nil {
		return nil, err
	}
	return live(rec, owner)
}

// Apply implements Repo.
func (r *StoreRepo) Apply(ctx context.Context, id, owner string, op Operation, expect int64) (*Context, error) {
	switch op.Op {
	case OpAddMessage, OpUpdateState, OpClearHistory:
	default:
		return nil, fmt.Errorf("%w: %q (want %s, %s or %s)", ErrBadOperation, op.Op, OpAddMessage, OpUpdateState, OpClearHistory)
	}
	if op.Op == OpUpdateState && op.State == nil && op.Path == "" {
		return nil, fmt.Errorf("%w: %s needs a state object or a path", ErrBadOperation, op.Op)
	}
	if err := r.checkObject("state", op.State); err != nil {
		return nil, err
	}
	var value any
	if op.Path != "" {
		if op.Op != OpUpdateState || op.State != nil {
			return nil, fmt.Errorf("%w: a path is an UPDATE_STATE's, without a state", ErrBadOperation)
		}
		if err := json.Unmarshal(op.Value, &value); err != nil {
			return nil, fmt.Errorf("%w: the value is not JSON: %w", ErrBadOperation, err)
		}
		// The path's keys nest the value: the two together are bounded.
		if err := r.checkObject("state", map[string]any{"": pathObject(op.Path, value)}); err != nil {
			return nil, err
		}
	}
	// Added messages the bounds drop whatever the context holds (the
	// oldest of them) are only counted: no id is made for them, nothing
	// is checked or logged.
	preDropped := len(op.Messages) - r.keepable(op.Messages)
	op.Messages = op.Messages[preDropped:]
	// The added messages' ids and time are made once: a retry below
	// writes the same.
	added := make([]Message, len(op.Messages))
	ids := make(map[string]bool, len(op.Messages))
	at := r.now().UTC()
	for i, m := range op.Messages {
		if m.ID == "" {
			m.ID = r.newID()
		} else if ids[m.ID] {
			return nil, fmt.Errorf("%w: two messages are %q", ErrBadOperation, m.ID)
		}
		ids[m.ID] = true
		if m.Type == "" {
			m.Type = TypeOf(m.Role)
		}
		m.Time = at
		added[i] = m
	}
	for range maxSwaps {
		raw, rec, err := r.load(ctx, id, true)
		if err != nil {
			return nil, err
		}
		c, err := live(rec, owner)
		if err != nil {
			return nil, err
		}
		if expect != 0 && expect != c.Version {
			return nil, ErrConflict
		}
		now := r.now().UTC()
		c.Version++
		c.UpdatedAt = now
		ch := Change{Version: c.Version, At: now, Operation: op.Op}
		switch op.Op {
		case OpAddMessage:
			for _, o := range c.Messages {
				if o.ID != "" && ids[o.ID] {
					return nil, fmt.Errorf("%w: the context has a message %q already", ErrBadOperation, o.ID)
				}
			}
			c.Messages = append(c.Messages, added...)
			ch.Dropped = preDropped + r.trim(c)
			// The entry logs the added messages the context keeps: those
			// dropped at once are only counted, so one request cannot
			// make the log larger than the context's bounds.
			ch.Messages = op.Messages[len(op.Messages)-min(len(op.Messages), len(c.Messages)):]
		case OpClearHistory:
			kept := []Message{}
			if op.Before != nil {
				for _, m := range c.Messages {
					if !m.Time.Before(*op.Before) {
						kept = append(kept, m)
					}
				}
				ch.Before = op.Before
			}
			c.Messages = kept
		}
		if op.Path != "" {
			if c.State == nil {
				c.State = map[string]any{}
			}
			if err := SetPath(c.State, op.Path, value); err != nil {
				return nil, err
			}
			ch.Path, ch.Value = op.Path, op.Value
			if err := r.checkSize(c); err != nil {
				return nil, err
			}
		}
		if op.State != nil && op.Op != OpClearHistory {
			// UPDATE_STATE, or the state a run's plan set with its turn.
			c.State = mergePatch(c.State, op.State)
			ch.State = op.State
			if err := r.checkSize(c); err != nil {
				return nil, err
			}
		}
		rec.Changes = r.trimChanges(append(rec.Changes, ch))
		ok, err := r.write(ctx, id, raw, rec)
		if err != nil {
			return nil, err
		}
		if ok {
			return c, nil
		}
	}
	return nil, ErrConflict
}

// keepable is how many of msgs, the newest, the limits could keep if the
// context held nothing else: trim drops the others in any case.
func (r *StoreRepo) keepable(msgs []Message) int {
	size, n := 0, 0
	for i := len(msgs) - 1; i >= 0 && n < r.cfg.MaxMessages; i-- {
		if size += msgs[i].size(); size > r.cfg.MaxBytes {
			break
		}
		n++
	}
	return n
}

// trim drops c's oldest messages beyond the limits and returns how many.
func (r *StoreRepo) trim(c *Context) int {
	size := 0
	for _, m := range c.Messages {
		size += m.size()
	}
	n := 0
	for n < len(c.Messages) && (len(c.Messages)-n > r.cfg.MaxMessages || size > r.cfg.MaxBytes) {
		size -= c.Messages[n].size()
		n++
	}
	c.Messages = append([]Message{}, c.Messages[n:]...)
	return n
}

// trimChanges drops the oldest entries of log beyond Config.MaxChanges
// entries or Config.MaxBytes of JSON (the entries carry the messages and
// state they added, so a log of MaxChanges entries alone could hold far
// more than the context); the latest entry always stays.
func (r *StoreRepo) trimChanges(log []Change) []Change {
	size := 0
	keep := 0
	for i := len(log) - 1; i >= 0; i-- {
		data, _ := json.Marshal(log[i])
		size += len(data)
		if keep > 0 && (keep >= r.cfg.MaxChanges || size > r.cfg.MaxBytes) {
			break
		}
		keep++
	}
	if keep == len(log) {
		return log
	}
	return append([]Change(nil), log[len(log)-keep:]...)
}

// Delete implements Repo: the record becomes a tombstone until the TTL.
func (r *StoreRepo) Delete(ctx context.Context, id, owner string, expect int64) error {
	for range maxSwaps {
		raw, rec, err := r.load(ctx, id, false)
		if err != nil {
			return err
		}
		c, err := owned(rec, owner) // a broken record too: deleting it is the way out
		if err != nil {
			return err
		}
		if expect != 0 && expect != c.Version {
			return ErrConflict
		}
		ok, err := r.write(ctx, id, raw, &record{Deleted: true, Owner: owner})
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
	}
	return ErrConflict
}

// Changes implements Repo.
func (r *StoreRepo) Changes(ctx context.Context, id, owner string, since int64) (*Changes, error) {
	_, rec, err := r.load(ctx, id, true)
	if err != nil {
		return nil, err
	}
	c, err := live(rec, owner)
	if err != nil {
		return nil, err
	}
	out := &Changes{ID: id, Version: c.Version, Changes: []Change{}}
	for _, ch := range rec.Changes {
		if ch.Version > since {
			out.Changes = append(out.Changes, ch)
		}
	}
	if since < c.Version && (len(out.Changes) == 0 || out.Changes[0].Version > since+1) {
		out.Truncated = true
	}
	return out, nil
}

// mergePatch merges patch into doc as JSON Merge Patch (RFC 7386) does:
// objects merge key by key, a null deletes the key, anything else
// replaces. doc is not modified.
func mergePatch(doc, patch map[string]any) map[string]any {
	out := make(map[string]any, len(doc)+len(patch))
	for k, v := range doc {
		out[k] = v
	}
	for k, v := range patch {
		switch pv := v.(type) {
		case nil:
			delete(out, k)
		case map[string]any:
			dv, _ := out[k].(map[string]any)
			out[k] = mergePatch(dv, pv)
		default:
			out[k] = v
		}
	}
	return out
}

// pathObject is value nested under path's keys, as deep as SetPath may
// put it.
func pathObject(path string, value any) any {
	keys, _ := splitPath(path)
	for i := len(keys) - 1; i >= 0; i-- {
		value = map[string]any{keys[i]: value}
	}
	return value
}
