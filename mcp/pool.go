package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"
)

// dialTimeout bounds starting and initialising one MCP server; a caller's own
// context may give up sooner without failing the dial for others.
const dialTimeout = time.Minute

// ErrPoolClosed is returned by a Pool's methods after Close.
var ErrPoolClosed = errors.New("mcp: pool closed")

// Pool keeps one Client per entry, dialled lazily and shared by concurrent
// callers. A Client whose connection broke is re-dialled, and a call that
// failed because the connection broke is retried once on the new one (a tool
// the broken connection was running may thus run twice). A stdio entry asked
// for with a different env than it was dialled with is re-dialled with the new
// env. Close closes all Clients.
type Pool struct {
	version string // agentgw's, for Dial
	log     *slog.Logger
	ctx     context.Context // cancelled by Close; parent of every dial
	cancel  context.CancelFunc

	mu     sync.Mutex
	slots  map[string]*slot
	closed bool
	wg     sync.WaitGroup // dials and background closes
}

// slot is one entry's Client, or the dial that will produce it.
type slot struct {
	env    []string
	ready  chan struct{} // closed when client or err is set
	client *Client
	err    error
}

// NewPool returns an empty Pool whose Clients tell servers that agentgw's
// version is version.
func NewPool(version string, log *slog.Logger) *Pool {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Pool{version: version, log: log, ctx: ctx, cancel: cancel, slots: map[string]*slot{}}
}

// Call calls tool on the server named by entry (see [Dial] for entry and
// env), and once more on a fresh Client when the first call failed because
// the connection broke.
func (p *Pool) Call(ctx context.Context, entry string, env []string, tool string, args map[string]any) (any, error) {
	for attempt := 0; ; attempt++ {
		c, err := p.client(ctx, entry, env)
		if err != nil {
			return nil, err
		}
		v, err := c.Call(ctx, tool, args)
		if err == nil || attempt > 0 || ctx.Err() != nil || !c.broken(err) {
			return v, err
		}
		p.log.Info("mcp server connection broke; re-dialling", "mcpServer", entry, "error", err)
		p.evict(entry, c)
	}
}

// client returns entry's Client, dialling it if there is none, the last dial
// failed, its connection ended or env changed. It waits for the dial as long
// as ctx allows.
func (p *Pool) client(ctx context.Context, entry string, env []string) (*Client, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrPoolClosed
	}
	s := p.slots[entry]
	if s == nil || p.stale(s, entry, env) {
		if s != nil {
			p.discard(s)
		}
		s = &slot{env: slices.Clone(env), ready: make(chan struct{})}
		p.slots[entry] = s
		p.wg.Add(1)
		go p.dial(s, entry)
	}
	p.mu.Unlock()
	select {
	case <-s.ready:
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for MCP server %s: %w", entry, ctx.Err())
	}
	if s.err != nil {
		return nil, s.err
	}
	return s.client, nil
}

// stale reports whether s can no longer serve entry with env. p.mu is held.
func (p *Pool) stale(s *slot, entry string, env []string) bool {
	if !isHTTPEntry(entry) && !slices.Equal(s.env, env) {
		return true
	}
	select {
	case <-s.ready:
		return s.err != nil || s.client.broken(nil)
	default:
		return false // a dial in progress
	}
}
