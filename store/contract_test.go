package store_test

import (
	"testing"
	"time"

	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/store/storetest"
)

// TestContract: Memory keeps the contract of every backend (the database
// backends run it in their own packages).
func TestContract(t *testing.T) {
	storetest.Contract(t, storetest.Backend{
		Open: func(t *testing.T, now func() time.Time) store.Store {
			m := store.NewMemory()
			store.SetClock(m, now)
			return m
		},
	})
}
