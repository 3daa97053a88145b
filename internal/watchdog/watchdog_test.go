package watchdog

import (
	"context"
	"errors"
	"testing"
	"time"
)

// cause waits for ctx to end and returns its cause as a *TimeoutError.
func cause(t *testing.T, ctx context.Context) *TimeoutError {
	t.Helper()
	<-ctx.Done()
	var te *TimeoutError
	if !errors.As(context.Cause(ctx), &te) {
		t.Fatalf("cause %v, not a *TimeoutError", context.Cause(ctx))
	}
	return te
}

func TestFirstByte(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	w := Start(cancel, time.Now(), time.Millisecond, time.Hour)
	defer w.Stop()
	if te := cause(t, ctx); te.Which != "first-byte" || te.Error() != "first-byte timeout of 1ms exceeded" {
		t.Errorf("got %q", te.Error())
	}
}

// TestFirstByteFromStart: the first-byte timeout counts from start, which
// may be in the past (a retried call's first attempt).
func TestFirstByteFromStart(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	w := Start(cancel, time.Now().Add(-time.Hour), time.Minute, 0)
	defer w.Stop()
	if te := cause(t, ctx); te.Which != "first-byte" {
		t.Errorf("got %q", te.Error())
	}
}

// TestIdle: after the first activity only the idle timeout applies, also
// when there is no first-byte timeout.
func TestIdle(t *testing.T) {
	for _, first := range []time.Duration{0, time.Hour} {
		ctx, cancel := context.WithCancelCause(context.Background())
		w := Start(cancel, time.Now(), first, time.Millisecond)
		w.Activity()
		w.Activity()
		if te := cause(t, ctx); te.Which != "idle" || te.Error() != "idle timeout of 1ms exceeded" {
			t.Errorf("first %s: got %q", first, te.Error())
		}
		w.Stop()
		cancel(nil)
	}
}

func TestNil(t *testing.T) {
	w := Start(func(error) { t.Error("canceled") }, time.Now(), 0, 0)
	if w != nil {
		t.Fatal("a watchdog without limits")
	}
	w.Activity()
	w.Stop()
}
