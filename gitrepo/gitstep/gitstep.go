// Package gitstep plugs server-side repositories (package gitrepo) into
// agents: the git step kind, registered with New, and the same operations
// as builtin tools (Builtins).
package gitstep

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path"
	"slices"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/gitrepo"
	"github.com/agentgw/agentgw/internal/suggest"
	"github.com/agentgw/agentgw/observe"
)

// gitOps are the operations of a git step.
var gitOps = []string{"tree", "show", "log", "diff", "status"}

// Config is a git step as written: `git: {op: diff, from: ..., ...}`.
// String fields are references, templates or literals.
type Config struct {
	Op        string `yaml:"op" doc:"the operation: tree, show, log, diff or status"`
	Repo      string `yaml:"repo" doc:"a configured repository's name; the request's VCS remote picks one when absent"`
	Ref       string `yaml:"ref" doc:"the revision to read; the selected repository's ref when absent"`
	From      string `yaml:"from" doc:"diff: the base revision; the request's upstream branch when absent"`
	To        string `yaml:"to" doc:"diff: the revision compared with from; ref when absent"`
	Path      string `yaml:"path" doc:"tree, show, log, diff: the path to read or to limit to"`
	Limit     int    `yaml:"limit" doc:"log: how many commits at most; the repository's default when 0"`
	MergeBase bool   `yaml:"mergeBase" doc:"diff: compare from the merge base of from and to" default:"false"`
}

// Kind is the git step kind: it reads a repository of the gateway's
// configuration (git.repositories).
type Kind struct {
	repos *gitrepo.Manager
}

// New returns the git step kind reading from repos; nil repos (lint, or a
// gateway without repositories) compiles steps that fail when they run.
func New(repos *gitrepo.Manager) *Kind { return &Kind{repos: repos} }

// Spec implements stepkind.Kind.
func (k *Kind) Spec() agent.KindSpec {
	return agent.KindSpec{Name: "git", Doc: "reads a server-side repository: its tree, a file, the log, a diff or the status", Config: &Config{}}
}

// gitKind is a compiled git step. Its string parameters are references,
// templates or literals.
type gitKind struct {
	repos                    *gitrepo.Manager
	op                       string
	repo, ref, from, to, dir *tmpl.Value
	limit                    int
	mergeBase                bool
}

// Compile implements stepkind.Kind.
func (k *Kind) Compile(c stepkind.Compiler, config any) stepkind.Step {
	g, sd, where := config.(*Config), c.Step(), c.Where()
	if !slices.Contains(gitOps, g.Op) {
		c.Errorf(sd.Pos, "%s: git.op %q must be one of %v%s", where, g.Op, gitOps, suggest.DidYouMean(g.Op, gitOps))
		return nil
	}
	str := func(name, s string) *tmpl.Value { return c.String(where+": git."+name, s, sd.Pos) }
	return &gitKind{repos: k.repos, op: g.Op, repo: str("repo", g.Repo), ref: str("ref", g.Ref), from: str("from", g.From),
		to: str("to", g.To), dir: str("path", g.Path), limit: g.Limit, mergeBase: g.MergeBase}
}

// Reads implements stepkind.Reader.
func (k *gitKind) Reads() ([]*tmpl.Value, []*tmpl.Template) {
	return []*tmpl.Value{k.repo, k.ref, k.from, k.to, k.dir}, nil
}

// Run implements stepkind.Step.
func (k *gitKind) Run(ctx context.Context, sr stepkind.Run) (any, error) {
	mgr := k.repos
	if mgr == nil {
		return nil, apierr.New(apierr.CodeRepositoriesNotConfigured, "git: this gateway has no repositories configured (git.repositories in its config)").
			Suggest("the gateway's operator should add repositories under git.repositories in the gateway config")
	}
	p, err := k.params(sr)
	if err != nil {
		return nil, err
	}
	sel := gitrepo.Selection{Name: p["repo"]}
	if sel.Name == "" {
		if vcs := sr.VCS(); vcs != nil {
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
	out, err := stepkind.ToPlain(res)
	if err != nil {
		return nil, err
	}
	if k.op == "tree" {
		out = map[string]any{"entries": out, "nodes": treeNodes(out, p["path"])}
	}
	return out, nil
}

func (k *gitKind) params(sr stepkind.Run) (map[string]string, error) {
	p := map[string]string{}
	for name, v := range map[string]*tmpl.Value{"repo": k.repo, "ref": k.ref, "from": k.from, "to": k.to, "path": k.dir} {
		s, err := sr.String(v)
		if err != nil {
			return nil, fmt.Errorf("git.%s: %w", name, err)
		}
		p[name] = s
	}
	return p, nil
}

func (k *gitKind) do(ctx context.Context, t *gitrepo.Target, p map[string]string) (res any, err error) {
	ctx, observed := observe.From(ctx).Git(ctx, cmp.Or(k.op, "status"), t.Name)
	defer func() { observed(err) }()
	ref := cmp.Or(p["ref"], t.Ref)
	switch k.op {
	case "tree":
		return t.Repo.Tree(ctx, ref, p["path"])
	case "show":
		return t.Repo.Show(ctx, ref, p["path"], 0)
	case "log":
		return t.Repo.Log(ctx, ref, p["path"], k.limit)
	case "diff":
		from, to := cmp.Or(p["from"], t.UpstreamRef), cmp.Or(p["to"], t.Ref)
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
		return apierr.New(apierr.CodeRepositoryNotAllowed, na.Error()).Wrap(err).
			Suggest("the gateway's operator must add the remote to a repository's allow list (git.repositories[].allow)")
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
