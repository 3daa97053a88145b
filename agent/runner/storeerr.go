package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/store"
)

// storeError is the error of a store call: nil and store.ErrNotFound as
// they are, for the caller to tell a key that expired or never was; any
// other failure (the database went away, a connection dropped) is
// STORE_UNAVAILABLE, a 503 before the stream and a copilot_error frame
// inside it, recoverable: what the store held is still there when it
// comes back. op and key go into the logged cause.
func storeError(op, key string, err error) error {
	if err == nil || errors.Is(err, store.ErrNotFound) {
		return err
	}
	return apierr.New(apierr.CodeStoreUnavailable, "the gateway's store is unavailable: it could not read or keep the run's data").
		Wrap(fmt.Errorf("store %s %s: %w", op, key, err))
}

// checkedStore is the runner's store: every failure of the store it wraps
// goes through storeError, so that no caller can report one as anything
// else. NewRunner wraps RunnerConfig.Store in it.
type checkedStore struct{ st store.Store }

func (c checkedStore) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	return storeError("put", key, c.st.Put(ctx, key, value, ttl))
}

func (c checkedStore) Get(ctx context.Context, key string) ([]byte, error) {
	v, err := c.st.Get(ctx, key)
	return v, storeError("get", key, err)
}

func (c checkedStore) Take(ctx context.Context, key string) ([]byte, error) {
	v, err := c.st.Take(ctx, key)
	return v, storeError("take", key, err)
}

// checked wraps st in a checkedStore; nil stays nil.
func checked(st store.Store) store.Store {
	if st == nil {
		return nil
	}
	if _, ok := st.(checkedStore); ok {
		return st
	}
	return checkedStore{st}
}
