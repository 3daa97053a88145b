package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy is how a call that failed before anything was relayed to the
// caller is tried again: a 429, a 5xx or a connection failure. Once a chunk
// has been relayed nothing is tried again (the user would see text twice).
// Every wait, and every attempt, stays within the first-byte timeout
// counted from the first attempt.
type RetryPolicy struct {
	// Retries is how many times one model is tried again; 0 never.
	Retries int
	// Backoff is the wait before the first retry (default 500ms); it
	// doubles with each further retry of the same model, up to MaxBackoff
	// (default 10s). Each wait is drawn between half of that and all of it
	// (jitter), and is at least what the upstream's Retry-After (or
	// retry-after-ms) asks for. A wait that would end past the first-byte
	// deadline (without a first-byte timeout: a wait over MaxBackoff) is
	// not made: the next fallback model, if any, is tried at once instead.
	Backoff    time.Duration
	MaxBackoff time.Duration
}

// MaxRetries caps RetryPolicy.Retries.
const MaxRetries = 10

// Defaults of RetryPolicy.
const (
	DefaultBackoff    = 500 * time.Millisecond
	DefaultMaxBackoff = 10 * time.Second
)

// check rejects a policy out of range.
func (p RetryPolicy) check() error {
	switch {
	case p.Retries < 0 || p.Retries > MaxRetries:
		return fmt.Errorf("llm: retries %d is not between 0 and %d", p.Retries, MaxRetries)
	case p.Backoff < 0 || p.MaxBackoff < 0:
		return errors.New("llm: a retry backoff must not be negative")
	}
	return nil
}

// withDefaults fills the zero durations.
func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.Backoff == 0 {
		p.Backoff = DefaultBackoff
	}
	if p.MaxBackoff == 0 {
		p.MaxBackoff = DefaultMaxBackoff
	}
	if p.MaxBackoff < p.Backoff {
		p.MaxBackoff = p.Backoff
	}
	return p
}

// attemptFunc makes one call of req (the request with the model of this
// attempt) and reports whether it relayed nothing, so that it may be tried
// again. Its error is cleaned (see cleanError).
type attemptFunc func(req *ChatRequest) (fresh bool, err error)

// retry continues a call whose first attempt failed with err (fresh: it
// relayed nothing): while the failure is retryable it tries the model again
// as the policy allows, then each fallback model in turn. It returns the
// last attempt's error, nil when one succeeded, and the model of the last
// attempt.
func (c *Client) retry(ctx context.Context, req *ChatRequest, start time.Time, err error, fresh bool, again attemptFunc) (string, error) {
	cur, tried := req, []string{req.Model}
	fallbacks := req.FallbackModels
	if fallbacks == nil {
		fallbacks = c.cfg.FallbackModels
	}
	retries := 0
	for {
		e := retryable(ctx, err, fresh)
		if e == nil {
			return cur.Model, err
		}
		if wait := c.backoff(retries, e.retryAfter); retries < c.cfg.Retry.Retries && c.fits(start, wait) {
			retries++
			c.log.WarnContext(ctx, "upstream call failed; retrying", "model", cur.Model, "retry", retries,
				"wait", wait, "error", e)
			if err := c.sleep(ctx, wait); err != nil {
				return cur.Model, &Error{Kind: KindCanceled, Message: "the request was canceled", Err: context.Cause(ctx)}
			}
		} else {
			next, ok := nextModel(fallbacks, tried)
			if !ok || !c.fits(start, 0) {
				return cur.Model, err
			}
			c.log.WarnContext(ctx, "upstream call failed; trying a fallback model", "model", cur.Model,
				"fallback", next, "error", e)
			tried = append(tried, next)
			r := *req
			r.Model, cur, retries = next, &r, 0
		}
		fresh, err = again(cur)
	}
}

// nextModel returns the first of fallbacks not tried yet.
func nextModel(fallbacks, tried []string) (string, bool) {
	for _, m := range fallbacks {
		if m == "" {
			continue
		}
		seen := false
		for _, t := range tried {
			seen = seen || t == m
		}
		if !seen {
			return m, true
		}
	}
	return "", false
}

// retryable returns err as an *Error when trying again may succeed and is
// safe: nothing was relayed, the caller is still there, and the upstream
// answered 429 or 5xx or could not be reached.
func retryable(ctx context.Context, err error, fresh bool) *Error {
	var e *Error
	if !fresh || ctx.Err() != nil || !errors.As(err, &e) {
		return nil
	}
	if e.Kind == KindUnavailable || e.Kind == KindStatus && (e.Status == http.StatusTooManyRequests || e.Status >= 500) {
		return e
	}
	return nil
}

// backoff is the wait before retry n+1 of a model: Backoff doubled n times,
// at most MaxBackoff, jittered into its upper half, and at least retryAfter.
func (c *Client) backoff(n int, retryAfter time.Duration) time.Duration {
	p := c.cfg.Retry
	d := p.Backoff
	for range n {
		if d >= p.MaxBackoff/2 {
			d = p.MaxBackoff
			break
		}
		d *= 2
	}
	d = min(d, p.MaxBackoff)
	wait := d/2 + c.jitter(d-d/2)
	return max(wait, retryAfter)
}

// fits reports whether a wait of d leaves time for another attempt: it
// ends before the first-byte deadline of a call that started at start, or,
// without a first-byte timeout, is at most MaxBackoff.
func (c *Client) fits(start time.Time, d time.Duration) bool {
	if c.cfg.FirstByteTimeout <= 0 {
		return d <= c.cfg.Retry.MaxBackoff
	}
	return time.Since(start)+d < c.cfg.FirstByteTimeout
}

// retryAfter reads the wait an upstream asks for: retry-after-ms (OpenAI,
// Azure) in milliseconds, else Retry-After in seconds or as an HTTP date.
// It returns 0 when there is none or it cannot be read.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 && s < 1e9 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// sleepContext waits d or until ctx ends.
func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// randomJitter returns a random duration in [0, d).
func randomJitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return rand.N(d)
}
