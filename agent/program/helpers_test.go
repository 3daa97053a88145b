package program

import (
	"io/fs"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/gitrepo/gitstep"
	"github.com/agentgw/agentgw/handoff/handoffstep"
	"github.com/agentgw/agentgw/tools/toolload"
	"github.com/agentgw/agentgw/tools/toolstep"
)

// testKinds are the step kinds the gateway registers: the built-ins, git
// (without repositories) and tool.
func testKinds() *stepkind.Registry {
	k := NewKinds()
	for _, kind := range []stepkind.Kind{gitstep.New(nil), toolstep.Kind{}, handoffstep.New(nil)} {
		if err := k.Register(kind); err != nil {
			panic(err)
		}
	}
	return k
}

// parseAll is Parse with every step kind the gateway registers.
func parseAll(file string, data []byte) ([]*Agent, agent.Diagnostics) {
	return ParseWith(LoadOptions{Kinds: testKinds(), Tools: toolload.Default()}, file, data)
}

// loadAll is Load with every step kind the gateway registers.
func loadAll(paths ...string) ([]*Agent, agent.Diagnostics) {
	return LoadWith(LoadOptions{Kinds: testKinds(), Tools: toolload.Default()}, paths...)
}

// loadFSAll is LoadFS with every step kind the gateway registers.
func loadFSAll(fsys fs.FS, root string) ([]*Agent, agent.Diagnostics) {
	return LoadFSWith(LoadOptions{Kinds: testKinds(), Tools: toolload.Default()}, fsys, root)
}
