// Package conversation keeps conversation contexts (seed 000 section 8): a
// conversation's stored messages, a state object plugins and plans share,
// and metadata, owned by the caller that created it, versioned, with a
// change log a second client catches up from. Contexts live in the
// gateway's store (memory, SQLite or PostgreSQL), so every replica sharing
// the store serves them; writes are optimistic: each names, or is checked
// against, the version it read, and a stale one is a conflict that writes
// nothing.
package conversation

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"regexp"
	"time"

	"github.com/agentgw/agentgw/internal/access"
)

// Operations of the change log and of Apply (seed 000 section 8).
const (
	// OpCreate is the change log's first entry.
	OpCreate = "CREATE"
	// OpAddMessage appends messages (the runner, after an answer; a
	// client with PATCH).
	OpAddMessage = "ADD_MESSAGE"
	// OpUpdateState merges an object into the state, or sets a value at
	// a path of it.
	OpUpdateState = "UPDATE_STATE"
	// OpClearHistory drops every message (or those written before a
	// time), keeping state and metadata.
	OpClearHistory = "CLEAR_HISTORY"
	// OpDelete deletes the context; its id stays taken until the TTL.
	OpDelete = "DELETE"
)

// Errors of the repository; the server maps them to the protocol's codes.
var (
	// ErrNotFound: no such context, another caller's, or deleted.
	ErrNotFound = errors.New("context not found")
	// ErrConflict: the write named another version than the stored one.
	ErrConflict = errors.New("context version conflict")
	// ErrExists: Create with an id that is taken (by the caller).
	ErrExists = errors.New("context exists")
	// ErrBadID: an id that is neither a UUID nor 1–128 of [A-Za-z0-9._:-].
	ErrBadID = errors.New("malformed context id")
	// ErrBadOperation: an operation Apply does not know or cannot apply.
	ErrBadOperation = errors.New("bad context operation")
	// ErrTooLarge: a write would make the JSON of the state and the
	// metadata together larger than Config.MaxBytes; nothing is written
	// (messages are trimmed instead, but no part of a state can be dropped
	// safely).
	ErrTooLarge = errors.New("context too large")
	// ErrTooDeep: a state or metadata nested deeper than Config.MaxDepth;
	// nothing is written, so every stored context can be read back.
	ErrTooDeep = errors.New("context nested too deep")
	// ErrUnreadable: the stored record of a context cannot be decoded
	// (one written before the bounds held). Its owner may still DELETE
	// it; nothing else can use it.
	ErrUnreadable = errors.New("context record unreadable")
	// ErrBadPath: an UPDATE_STATE path that leads through a value that is
	// not an object or an array, or to an array index out of its bounds.
	ErrBadPath = errors.New("context state path cannot be set")
)

// idPattern is what a context id may be made of (a UUID is), up to
// maxIDLen bytes. (A counted repetition, {1,128}, would compile into a
// program of 128 copies that every process would hold from its start:
// 0.1 MB.)
var idPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]+$`)

// maxIDLen is the longest a context id may be, in bytes.
const maxIDLen = 128

// ValidID reports whether id may name a context.
func ValidID(id string) bool { return len(id) <= maxIDLen && idPattern.MatchString(id) }

// Message is one stored turn, as the model saw it: a user's or the
// assistant's text, an assistant's tool calls, or a tool's result.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// ToolCalls are an assistant message's calls, in the upstream's shape.
	ToolCalls json.RawMessage `json:"toolCalls,omitempty"`
	// ToolCallID is the call a tool message answers.
	ToolCallID string `json:"toolCallId,omitempty"`

	// The seed's fields (seed 000 sections 2.2 and 8.1), kept beside the
	// message in the record (record.Meta) and returned in the seed's shape
	// (Seed) only, so the shape above stays the one clients know.

	// ID is the message's messageId: made when it is first written, and
	// kept, so every replica names it alike.
	ID string `json:"-"`
	// Type is the seed's message type (TypeOf its role unless the client
	// named one).
	Type string `json:"-"`
	// Time is when the gateway first wrote it; zero for a message kept
	// before the gateway recorded times.
	Time time.Time `json:"-"`
}

// size is what a message counts against Config.MaxBytes.
func (m Message) size() int {
	return len(m.Role) + len(m.Content) + len(m.ToolCalls) + len(m.ToolCallID)
}

// Context is a conversation context as the API returns it. Owner is the
// hash of the caller's identity (see the server), never a raw token.
type Context struct {
	ID        string         `json:"contextId"`
	CreatedAt time.Time      `json:"createdAt"`
	UpdatedAt time.Time      `json:"updatedAt"`
	Version   int64          `json:"version"`
	Owner     string         `json:"owner"`
	Messages  []Message      `json:"messages"`
	State     map[string]any `json:"state"`
	Metadata  map[string]any `json:"metadata"`
}

// Change is one entry of a context's change log: the version it made and
// what it did. Dropped counts the oldest messages the limits dropped with
// it.
type Change struct {
	Version   int64          `json:"version"`
	At        time.Time      `json:"at"`
	Operation string         `json:"operation"`
	Messages  []Message      `json:"messages,omitempty"`
	State     map[string]any `json:"state,omitempty"`
	Dropped   int            `json:"dropped,omitempty"`
	// Path and Value are an UPDATE_STATE by path: Value (JSON) was set at
	// the dotted Path of the state (null: the key was deleted).
	Path  string          `json:"path,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
	// Before is a CLEAR_HISTORY's filter: the messages written before it
	// were dropped (without one, all were).
	Before *time.Time `json:"beforeTimestamp,omitempty"`
}

// Changes is a context's change log after a version.
type Changes struct {
	ID      string   `json:"contextId"`
	Version int64    `json:"version"`
	Changes []Change `json:"changes"`
	// Truncated: entries after the asked version are no longer kept (the
	// log keeps Config.MaxChanges); the client should GET the context.
	Truncated bool `json:"truncated"`
}

// Operation is one write of Apply. An ADD_MESSAGE may carry a State
// too, merged as UPDATE_STATE merges: a run's turn and the state its plan
// set, kept as one change.
type Operation struct {
	Op       string         `json:"operation"`
	Messages []Message      `json:"messages,omitempty"`
	State    map[string]any `json:"state,omitempty"`
	// Path and Value are the seed's UPDATE_STATE (seed 000 section 8.2.2):
	// Value, JSON, is set at Path, keys separated by dots, instead of
	// merging State (see SetPath).
	Path  string          `json:"path,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
	// Before is the seed's CLEAR_HISTORY filter (beforeTimestamp): only
	// the messages written before it are dropped.
	Before *time.Time `json:"beforeTimestamp,omitempty"`
}

// Config bounds contexts. Zero fields take the defaults.
type Config struct {
	// TTL is how long a context lives after its last change, and a deleted
	// id stays taken; 0 means DefaultTTL.
	TTL time.Duration
	// MaxMessages and MaxBytes bound the stored messages; the oldest are
	// dropped (and the change log says so). MaxBytes bounds the JSON of
	// the state and the metadata together too, apart: a write over it is
	// ErrTooLarge. 0 means the defaults.
	MaxMessages int
	MaxBytes    int
	// MaxDepth bounds the nesting of the state and the metadata (an
	// object of scalars is 1 deep): a write deeper is ErrTooDeep. 0 means
	// DefaultMaxDepth; at most MaxMaxDepth.
	MaxDepth int
	// MaxChanges is how many change log entries are kept, and no more of
	// them than MaxBytes of JSON; 0 means DefaultMaxChanges.
	MaxChanges int
	// Now is the clock; nil means time.Now (tests set it).
	Now func() time.Time
	// NewID makes a message's id; nil means "msg_" and a UUID (tests set
	// it).
	NewID func() string
}

// Defaults of Config.
const (
	DefaultTTL         = 30 * 24 * time.Hour
	DefaultMaxMessages = 200
	DefaultMaxBytes    = 1 << 20
	DefaultMaxChanges  = 256
	DefaultMaxDepth    = 64
	// MaxMaxDepth is the most Config.MaxDepth may be: a record holds the
	// state a few levels down, and must stay under the JSON decoder's
	// own limit (10000) to be read back.
	MaxMaxDepth = 1000
)

func (c Config) withDefaults() Config {
	if c.TTL <= 0 {
		c.TTL = DefaultTTL
	}
	if c.MaxMessages <= 0 {
		c.MaxMessages = DefaultMaxMessages
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.MaxChanges <= 0 {
		c.MaxChanges = DefaultMaxChanges
	}
	if c.MaxDepth <= 0 {
		c.MaxDepth = DefaultMaxDepth
	}
	c.MaxDepth = min(c.MaxDepth, MaxMaxDepth)
	return c
}

// Anonymous owns the contexts of callers that are neither authenticated
// nor name a user.
const Anonymous = access.Anonymous

// UserOwner is the owner identity of a user id (userInfo.id): "user:" and
// the id when it is short and plain, else "user:sha256:" and a hash, so
// that no caller makes the owner of every record it writes large; "" is
// Anonymous.
func UserOwner(id string) string {
	if id == "" {
		return Anonymous
	}
	if len(id) <= 64 && ValidID(id) {
		return "user:" + id
	}
	sum := sha256.Sum256([]byte(id))
	return "user:sha256:" + hex.EncodeToString(sum[:16])
}
