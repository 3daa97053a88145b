package gitstep

import (
	"context"
	"fmt"

	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/gitrepo"
	"github.com/agentgw/agentgw/tools"
)

// Builtins are the git operations of git steps as builtin tools, for
// tool definitions with runtime builtin and entry git.tree, git.show,
// git.log, git.diff or git.status. Their parameters: repo (a configured
// repository's name; required), ref, path, from, to, limit, mergeBase.
func Builtins(m *gitrepo.Manager) map[string]tools.BuiltinFunc {
	out := map[string]tools.BuiltinFunc{}
	for _, op := range gitOps {
		out["git."+op] = func(ctx context.Context, p map[string]any) (any, error) {
			if m == nil {
				return nil, fmt.Errorf("this gateway has no repositories configured (git.repositories)")
			}
			name := str(p["repo"])
			if name == "" {
				return nil, fmt.Errorf("repo is required: one of %v", m.Names())
			}
			t, err := m.Select(ctx, gitrepo.Selection{Name: name})
			if err != nil {
				return nil, err
			}
			k := &gitKind{op: op, mergeBase: p["mergeBase"] == true}
			if n, ok := p["limit"].(float64); ok {
				k.limit = int(n)
			}
			params := map[string]string{"ref": str(p["ref"]), "path": str(p["path"]), "from": str(p["from"]), "to": str(p["to"])}
			res, err := k.do(ctx, t, params)
			if err != nil {
				return nil, err
			}
			return stepkind.ToPlain(res)
		}
	}
	return out
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
