package runner

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/gitrepo"
	"github.com/agentgw/agentgw/steps"
)

// gitOps are the operations of a git step.
var gitOps = []string{"tree", "show", "log", "diff", "status"}

// gitKind reads a server-side repository. Its string parameters are
// references, templates or literals.
type gitKind struct {
	op                       string
	repo, ref, from, to, dir *tmpl.Value
	limit                    int
	mergeBase                bool
}

func (c *compiler) compileGit(where string, sd *agent.Step) stepKind {
	g := sd.Git
	if !slices.Contains(gitOps, g.Op) {
		c.errorf(sd.Pos, "%s: git.op %q must be one of %v%s", where, g.Op, gitOps, agent.DidYouMean(g.Op, gitOps))
		return nil
	}
	str := func(name, s string) *tmpl.Value { return c.compileString(where+": git."+name, s, sd.Pos) }
	return &gitKind{op: g.Op, repo: str("repo", g.Repo), ref: str("ref", g.Ref), from: str("from", g.From),
		to: str("to", g.To), dir: str("path", g.Path), limit: g.Limit, mergeBase: g.MergeBase}
}

// compileString compiles a string parameter: a reference, a template or a
// literal.
func (c *compiler) compileString(where, s string, pos agent.Position) *tmpl.Value {
	v := &tmpl.Value{Pos: pos, Lit: s}
	switch {
	case steps.IsRef(s):
		ref, err := steps.ParseRef(s)
		if err != nil {
			c.errorf(pos, "%s: %v", where, err)
		}
		v.Ref = ref
	case tmpl.ContainsTemplate(s):
		v.Tmpl = tmpl.CompileText(where, &agent.Text{Src: s, Pos: pos}, c.diags)
	}
	return v
}

// str renders a string parameter.
func (sr *stepRun) str(v *tmpl.Value) (string, error) {
	x, err := v.Render(sr.env)
	if err != nil {
		return "", tmpl.RenderError(err)
	}
	if x == nil {
		return "", nil
	}
	s, ok := x.(string)
	if !ok {
		return "", fmt.Errorf("expected text, got %T", x)
	}
	return s, nil
}

func (k *gitKind) run(ctx context.Context, sr *stepRun) (any, error) {
	mgr := sr.run.cfg.Git
	if mgr == nil {
		return nil, &agent.Error{Code: "REPOSITORIES_NOT_CONFIGURED", Status: 503, Source: agent.SourceServer,
			Message:         "git: this gateway has no repositories configured (git.repositories in its config)",
			SuggestedAction: "the gateway's operator should add repositories under git.repositories in the gateway config"}
	}
	p, err := k.params(sr)
	if err != nil {
		return nil, err
	}
	sel := gitrepo.Selection{Name: p["repo"]}
	if sel.Name == "" {
		if vcs := sr.run.req.Context.VCS; vcs != nil {
			sel = gitrepo.Selection{RemoteURL: vcs.RemoteURL, Branch: vcs.BranchName, Upstream: vcs.UpstreamBranchName}
		}
	}
	t, err := mgr.Select(ctx, sel)
	if err != nil {
		return nil, gitError(err)
	}
	res, err := k.do(ctx, t, p)
	if err != nil {
		return nil, gitError(err)
	}
	out, err := toPlain(res)
	if err != nil {
		return nil, err
	}
	if k.op == "tree" {
		out = map[string]any{"entries": out, "nodes": treeNodes(out, p["path"])}
	}
	return out, nil
}

func (k *gitKind) params(sr *stepRun) (map[string]string, error) {
	p := map[string]string{}
	for name, v := range map[string]*tmpl.Value{"repo": k.repo, "ref": k.ref, "from": k.from, "to": k.to, "path": k.dir} {
		s, err := sr.str(v)
		if err != nil {
			return nil, fmt.Errorf("git.%s: %w", name, err)
		}
		p[name] = s
	}
	return p, nil
}

func (k *gitKind) do(ctx context.Context, t *gitrepo.Target, p map[string]string) (any, error) {
	ref := firstNonEmpty(p["ref"], t.Ref)
	switch k.op {
	case "tree":
		return t.Repo.Tree(ctx, ref, p["path"])
	case "show":
		return t.Repo.Show(ctx, ref, p["path"], 0)
	case "log":
		return t.Repo.Log(ctx, ref, p["path"], k.limit)
	case "diff":
		from, to := firstNonEmpty(p["from"], t.UpstreamRef), firstNonEmpty(p["to"], t.Ref)
		if from == "" {
			return nil, errors.New("git diff needs a from ref: give git.from, or send vcs.upstreamBranchName")
		}
		var paths []string
		if p["path"] != "" {
			paths = []string{p["path"]}
		}
		return t.Repo.Diff(ctx, from, to, gitrepo.DiffOptions{MergeBase: k.mergeBase, Paths: paths})
	default:
		return t.Repo.Status(ctx)
	}
}

// gitError makes the allow-list refusal a clear client-facing error.
func gitError(err error) error {
	var na *gitrepo.NotAllowedError
	if errors.As(err, &na) {
		return &agent.Error{Code: "REPOSITORY_NOT_ALLOWED", Status: 403, Source: agent.SourceClient, Message: na.Error(), Err: err,
			SuggestedAction: "the gateway's operator must add the remote to a repository's allow list (git.repositories[].allow)"}
	}
	return fmt.Errorf("git: %w", err)
}

// TreeRoot is the pId of a repository's top-level entries in tree nodes.
const TreeRoot = "/"

// treeNodes turns tree entries into the nodes of a tree action: id is the
// path, pId the directory (TreeRoot at the top), type dir or file.
func treeNodes(entries any, dir string) []any {
	if dir == "" {
		dir = TreeRoot
	}
	list, _ := entries.([]any)
	nodes := make([]any, 0, len(list))
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		p, _ := m["path"].(string)
		typ, _ := m["type"].(string)
		desc := ""
		if size, ok := m["size"].(int); ok && typ == "file" {
			desc = fmt.Sprintf("%d bytes", size)
		}
		nodes = append(nodes, map[string]any{"id": p, "pId": dir, "type": typ, "name": path.Base(p),
			"description": desc, "labels": []any{}, "path": p})
	}
	return nodes
}
