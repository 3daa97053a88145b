package chat_test

import (
	"testing"

	"github.com/agentgw/agentgw/internal/deptest"
)

// TestDeps: the command-line client talks to a gateway the way a plugin
// does; it shares the tools' wire types (agent/toolspec) but links none of
// the gateway's runtimes: no WASM runtime, database, queue or expression
// engine. Git it may (chat/collect reads the branch, as a plugin would).
func TestDeps(t *testing.T) {
	deptest.Forbid(t, deptest.Module+"/chat", deptest.HeavyBut("github.com/go-git/go-git/v5/...")...)
}
