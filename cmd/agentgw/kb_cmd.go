package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"strings"

	"github.com/agentgw/agentgw/knowledge/index"
)

const kbUsage = `usage: agentgw kb index [ID]...          index the knowledge bases (all, or those named) now
       agentgw kb search [--top N] ID QUERY   search one as an agent's recall does
(with the gateway's flags: --config, --data, …)
`

// noKnowledgeBases is what kb says when the config defines no knowledge
// base: a configuration error, exit code 2 as for a config that does not
// load.
const noKnowledgeBases = `agentgw kb: no knowledge bases configured; add knowledgeBases to the config (--config FILE), e.g.
  knowledgeBases:
    - id: docs
      sources:
        - dir: ./docs
          paths: ["**/*.md"]
(configs/gateway.yaml shows every key)
`

// cmdKB indexes and searches the configured knowledge bases in the
// gateway's store, as serve does, without a server.
func cmdKB(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "index" && args[0] != "search") {
		fmt.Fprint(stderr, kbUsage)
		return 2
	}
	sub := args[0]
	g := newGatewayFlags("kb "+sub, stderr)
	top := 0
	if sub == "search" {
		g.fs.IntVar(&top, "top", 5, "how many references")
	}
	if err := g.fs.Parse(args[1:]); err != nil {
		return 2
	}
	cfg, err := g.load(getenv)
	if err != nil {
		fmt.Fprintln(stderr, "agentgw:", err)
		return 2
	}
	if len(cfg.KnowledgeBases) == 0 {
		fmt.Fprint(stderr, noKnowledgeBases)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	st, err := newStore(ctx, cfg, getenv, runtime.GOOS, log)
	if err != nil {
		fmt.Fprintln(stderr, "agentgw kb:", err)
		return 1
	}
	defer st.close()
	repos, err := newRepos(cfg, getenv, log)
	if err != nil {
		fmt.Fprintln(stderr, "agentgw kb:", err)
		return 1
	}
	m, err := newKnowledge(ctx, st.Store, cfg, getenv, repos, log)
	if err != nil {
		fmt.Fprintln(stderr, "agentgw kb:", err)
		return 1
	}
	rest := g.fs.Args()
	if sub == "index" {
		ids := rest
		if len(ids) == 0 {
			ids = m.IDs()
		}
		code := 0
		for _, id := range ids {
			rep, err := m.Index(ctx, id)
			if err != nil {
				fmt.Fprintf(stderr, "agentgw kb: %s: %v\n", id, err)
				code = 1
				continue
			}
			fmt.Fprintf(stdout, "%s: %d files indexed, %d unchanged, %d removed, %d skipped; %s\n", id, rep.Indexed, rep.Unchanged, rep.Gone, len(rep.Skipped), firstNonEmpty(rep.Commits, "no commits"))
		}
		return code
	}
	if len(rest) < 2 {
		fmt.Fprint(stderr, kbUsage)
		return 2
	}
	hits, err := m.Search(ctx, rest[0], index.Query{Text: strings.Join(rest[1:], " "), TopK: top})
	if err != nil {
		fmt.Fprintln(stderr, "agentgw kb:", err)
		return 1
	}
	for _, h := range hits {
		c := h.Chunk
		fmt.Fprintf(stdout, "%.3f  %s:%d-%d  %s\n", h.Score, c.FileName, c.StartLine, c.EndLine, c.Symbol)
	}
	return 0
}
