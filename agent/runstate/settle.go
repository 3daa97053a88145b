package runstate

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// A paused run is taken in two steps (soak F11): a claim, one statement
// whose success hands the run to this request, then the deletion of the
// claimed record. A claim whose answer is lost with the connection (the
// statement may have run) is released, so that the run waits again as it
// did, and the same answer, sent again, resumes it; a claimed record is
// not there for anyone else meanwhile, so two answers never both resume
// it. A claim is never handed on: one its process dies holding stays
// claimed until the pause's TTL expires it.

// maxSettling bounds the settles running in the background. One over the
// bound is logged and left: a claimed record stays invisible until its
// TTL, and a claim to release is still released when its run is asked
// for again in this process.
const maxSettling = 1024

// Bounds of the backoff between two attempts of one settle.
const (
	settleFirstWait = 50 * time.Millisecond
	settleMaxWait   = 5 * time.Second
	settleTimeout   = 10 * time.Second // per attempt
)

// settler finishes the claims of taken pauses and releases those whose
// outcome is unknown, in the background, trying again with backoff while
// the store does not answer, for as long as a pause lives.
type settler struct {
	kv  KV // checked
	log *slog.Logger
	ttl time.Duration // how long to keep trying

	mu sync.Mutex
	// pending are the tokens of the claims to release, by key.
	pending map[string][]string
	running int
}

func newSettler(kv KV, log *slog.Logger, ttl time.Duration) *settler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &settler{kv: kv, log: log, ttl: ttl, pending: map[string][]string{}}
}

// finish deletes the record key that token claimed, in the background.
func (s *settler) finish(key, token string) {
	s.spawn("finish", key, func(ctx context.Context) error { return s.kv.Finish(ctx, key, token) })
}

// release gives back, in the background, the claim token may hold on
// key: the claim's answer was lost, and the claim may or may not have
// run. Until released, resolve does it for a request that asks for key.
func (s *settler) release(key, token string) {
	s.mu.Lock()
	s.pending[key] = append(s.pending[key], token)
	s.mu.Unlock()
	s.spawn("release", key, func(ctx context.Context) error { return s.resolve(ctx, key) })
}

// resolve releases the claims on key still to release, before key is
// read or claimed again; its error is the store's.
func (s *settler) resolve(ctx context.Context, key string) error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	tokens := s.pending[key]
	s.mu.Unlock()
	for _, token := range tokens {
		if err := s.kv.Release(ctx, key, token); err != nil {
			return err
		}
		s.mu.Lock()
		left := s.pending[key][:0:0]
		for _, t := range s.pending[key] {
			if t != token {
				left = append(left, t)
			}
		}
		if len(left) == 0 {
			delete(s.pending, key)
		} else {
			s.pending[key] = left
		}
		s.mu.Unlock()
	}
	return nil
}

// spawn runs op in the background until it succeeds or the pause's TTL
// has passed, at most maxSettling at a time.
func (s *settler) spawn(what, key string, op func(context.Context) error) {
	s.mu.Lock()
	if s.running >= maxSettling {
		s.mu.Unlock()
		s.log.Warn("paused run: too many claims to settle, left to expire", "op", what, "key", key)
		return
	}
	s.running++
	s.mu.Unlock()
	go func() {
		defer func() {
			s.mu.Lock()
			s.running--
			s.mu.Unlock()
		}()
		deadline := time.Now().Add(s.ttl)
		wait := settleFirstWait
		for {
			ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
			err := op(ctx)
			cancel()
			if err == nil {
				return
			}
			if time.Now().After(deadline) {
				s.log.Error("paused run: could not settle its claim, left to expire", "op", what, "key", key, "err", err)
				return
			}
			s.log.Warn("paused run: settling its claim failed, trying again", "op", what, "key", key, "err", err, "wait", wait)
			time.Sleep(wait)
			wait = min(2*wait, settleMaxWait)
		}
	}()
}
