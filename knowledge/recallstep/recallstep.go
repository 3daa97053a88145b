// Package recallstep lets plans and models search the gateway's knowledge
// bases: the `recall` step kind and the search_knowledge built-in tool.
// Both answer in the protocol's reference shape, [{score, chunk, metadata:
// {fileName, sourceType, source, startPos, endPos}}].
package recallstep

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/knowledge/index"
	"github.com/agentgw/agentgw/tools"
)

// Searcher searches one knowledge base: the gateway's knowledge/kb.Manager.
type Searcher interface {
	Search(ctx context.Context, id string, q index.Query) ([]index.Hit, error)
	IDs() []string
}

// Reference turns a hit into the protocol's reference shape.
type Reference func(index.Hit) contextvars.Reference

// Config is a recall step's configuration.
type Config struct {
	KnowledgeBases []string `yaml:"knowledgeBases" doc:"the knowledge bases searched; every one when absent"`
	Query          string   `yaml:"query" doc:"what to search for: a template or reference; the user's input when absent"`
	TopK           int      `yaml:"topK" doc:"how many references per knowledge base" default:"5"`
	Paths          []string `yaml:"paths" doc:"keep chunks of files matching these globs"`
	SourceType     string   `yaml:"sourceType" doc:"keep only code or doc chunks"`
}

// Kind is the recall step kind.
type Kind struct {
	searcher Searcher
	ref      Reference
}

// New returns the kind searching s (nil: the step fails: no knowledge
// bases); ref shapes the references.
func New(s Searcher, ref Reference) Kind { return Kind{searcher: s, ref: ref} }

var _ stepkind.Kind = Kind{}

// Spec implements stepkind.Kind.
func (Kind) Spec() agent.KindSpec {
	return agent.KindSpec{Name: "recall", Doc: "searches knowledge bases; its result is {references, text}", Config: new(Config)}
}

type step struct {
	k     Kind
	cfg   Config
	query *tmpl.Value
}

// Compile implements stepkind.Kind.
func (k Kind) Compile(c stepkind.Compiler, config any) stepkind.Step {
	cfg, sd, where := *config.(*Config), c.Step(), c.Where()
	switch cfg.SourceType {
	case "", "code", "doc":
	default:
		c.Errorf(sd.Pos, "%s: recall: sourceType %q is not code or doc", where, cfg.SourceType)
	}
	if cfg.TopK < 0 {
		c.Errorf(sd.Pos, "%s: recall: topK must not be negative", where)
	}
	q := firstNonEmpty(cfg.Query, "$input.prompt")
	return &step{k: k, cfg: cfg, query: c.String(where+": recall.query", q, sd.Pos)}
}

// Reads implements stepkind.Reader.
func (s *step) Reads() ([]*tmpl.Value, []*tmpl.Template) { return []*tmpl.Value{s.query}, nil }

// Run implements stepkind.Step.
func (s *step) Run(ctx context.Context, r stepkind.Run) (any, error) {
	q, err := r.String(s.query)
	if err != nil {
		return nil, err
	}
	refs, err := Search(ctx, s.k.searcher, s.k.ref, Params{Query: q, KnowledgeBases: s.cfg.KnowledgeBases, TopK: s.cfg.TopK,
		Paths: s.cfg.Paths, SourceType: s.cfg.SourceType})
	if err != nil {
		return nil, err
	}
	return result(refs)
}

// Params are a search's.
type Params struct {
	Query          string
	KnowledgeBases []string
	TopK           int
	Paths          []string
	SourceType     string
}

// Search searches the knowledge bases p names (all, when none) for
// p.Query: each gives its topK references, best first.
func Search(ctx context.Context, s Searcher, ref Reference, p Params) ([]contextvars.Reference, error) {
	if s == nil || len(s.IDs()) == 0 {
		return nil, apierr.New(apierr.CodeBadRequest, "this gateway has no knowledge bases (knowledgeBases in its config)")
	}
	ids := p.KnowledgeBases
	if len(ids) == 0 {
		ids = s.IDs()
	}
	topK := p.TopK
	if topK <= 0 {
		topK = 5
	}
	var out []contextvars.Reference
	for _, id := range ids {
		hits, err := s.Search(ctx, id, index.Query{Text: p.Query, TopK: topK, PathGlobs: p.Paths, SourceType: p.SourceType})
		if err != nil {
			return nil, fmt.Errorf("knowledge base %s: %w", id, err)
		}
		for _, h := range hits {
			out = append(out, ref(h))
		}
	}
	return out, nil
}

// result is a step's or the tool's answer: the references as plain data,
// and their text, each chunk headed by its file and lines.
func result(refs []contextvars.Reference) (any, error) {
	var b strings.Builder
	list := make([]any, 0, len(refs))
	for _, r := range refs {
		m := map[string]any{"fileName": r.Metadata.FileName, "sourceType": r.Metadata.SourceType, "source": r.Metadata.Source}
		if r.Metadata.StartPos != nil {
			m["startPos"], m["endPos"] = *r.Metadata.StartPos, *r.Metadata.EndPos
			fmt.Fprintf(&b, "%s:%d-%d\n", r.Metadata.FileName, *r.Metadata.StartPos, *r.Metadata.EndPos)
		}
		b.WriteString(r.Chunk)
		b.WriteString("\n\n")
		list = append(list, map[string]any{"score": r.Score, "chunk": r.Chunk, "metadata": m})
	}
	return map[string]any{"references": list, "text": strings.TrimSpace(b.String())}, nil
}

// Builtins are the built-in tools of knowledge bases: search_knowledge,
// with parameters {query, knowledgeBases?, topK?, paths?, sourceType?}.
func Builtins(s Searcher, ref Reference) map[string]tools.BuiltinFunc {
	return map[string]tools.BuiltinFunc{
		"search_knowledge": func(ctx context.Context, params map[string]any) (any, error) {
			p := Params{Query: str(params["query"]), SourceType: str(params["sourceType"]),
				KnowledgeBases: strs(params["knowledgeBases"]), Paths: strs(params["paths"])}
			if n, ok := params["topK"].(float64); ok {
				p.TopK = int(n)
			}
			if strings.TrimSpace(p.Query) == "" {
				return nil, &toolspec.ResultError{Code: toolspec.CodeInvalidParameters, Message: "search_knowledge needs a query"}
			}
			refs, err := Search(ctx, s, ref, p)
			if err != nil {
				return nil, err
			}
			return result(refs)
		},
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func strs(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, x := range l {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
