package runstate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentgw/agentgw/apierr"
)

// storeError is the error of a store call: nil and ErrNotFound as they
// are, for the caller to tell a key that expired or never was; any other
// failure (the database went away, a connection dropped) is
// STORE_UNAVAILABLE, a 503 before the stream and a copilot_error frame
// inside it, recoverable: what the store held is still there when it
// comes back. op and key go into the logged cause.
func storeError(op, key string, err error) error {
	if err == nil || errors.Is(err, ErrNotFound) {
		return err
	}
	return apierr.New(apierr.CodeStoreUnavailable, "the gateway's store is unavailable: it could not read or keep the run's data").
		Wrap(fmt.Errorf("store %s %s: %w", op, key, err))
}

// checkedKV is a KV every failure of which goes through storeError, so
// that no caller can report one as anything else.
type checkedKV struct{ kv KV }

func (c checkedKV) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	return storeError("put", key, c.kv.Put(ctx, key, value, ttl))
}

func (c checkedKV) Get(ctx context.Context, key string) ([]byte, error) {
	v, err := c.kv.Get(ctx, key)
	return v, storeError("get", key, err)
}

func (c checkedKV) Claim(ctx context.Context, key, token string) ([]byte, error) {
	v, err := c.kv.Claim(ctx, key, token)
	return v, storeError("claim", key, err)
}

func (c checkedKV) Release(ctx context.Context, key, token string) error {
	return storeError("release", key, c.kv.Release(ctx, key, token))
}

func (c checkedKV) Finish(ctx context.Context, key, token string) error {
	return storeError("finish", key, c.kv.Finish(ctx, key, token))
}

// checked wraps kv so that its every failure but ErrNotFound is
// STORE_UNAVAILABLE (New does it for its Store); nil stays nil, and a kv
// already checked is returned as it is.
func checked(kv KV) KV {
	if kv == nil {
		return nil
	}
	if _, ok := kv.(checkedKV); ok {
		return kv
	}
	return checkedKV{kv}
}
