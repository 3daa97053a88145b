package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"strings"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/knowledge/index"
	"github.com/agentgw/agentgw/knowledge/kb"
)

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

// kbSearchOptions are the flags of agentgw kb search beside the gateway's.
type kbSearchOptions struct {
	top          int
	show, asJSON bool
}

// newKBCmd is agentgw kb and its sub-commands index and search, which
// index and search the configured knowledge bases in the gateway's store,
// as serve does, without a server.
func newKBCmd(e cliEnv) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kb",
		Short: "Index and search the knowledge bases",
		Long: `Index and search the knowledge bases the gateway config defines
(knowledgeBases), in the gateway's store, as serve does, without a server.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return errors.New("missing sub-command: index or search")
		},
	}
	index := &cobra.Command{
		Use:   "index [ID]...",
		Short: "Index the knowledge bases (all, or those named) now",
		Long: `Index the knowledge bases (all, or those named) now.

It shows its progress on stderr: a bar on a terminal, else a line at every
10% of a source's files; then a line per knowledge base on stdout.`,
		Example: `  agentgw kb index --config agentgw.yaml
  agentgw kb index docs --config agentgw.yaml`,
	}
	gi := newGatewayFlags(index.Flags(), withData|withUpstream)
	index.ValidArgsFunction = func(_ *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return kbIDs(gi, e.getenv)
	}
	index.RunE = func(_ *cobra.Command, ids []string) error {
		return exit(cmdKBIndex(gi, ids, e.getenv, e.stdout, e.stderr))
	}
	search := &cobra.Command{
		Use:   "search ID QUERY...",
		Short: "Search a knowledge base as an agent's recall does",
		Long: `Search the knowledge base ID for QUERY (its words joined with spaces) as an
agent's recall does, and print a line per hit: score, FILE:LINES, symbol.
--show adds each hit's text under it; --json prints the hits as a JSON array
of references (those of POST /knowledge-bases/{id}/search).`,
		Example: `  agentgw kb search docs "retry backoff" --top 2
  agentgw kb search docs retry backoff --json`,
		Args: minArgs("ID", "QUERY"),
	}
	gs := newGatewayFlags(search.Flags(), withData|withUpstream)
	var o kbSearchOptions
	search.Flags().IntVar(&o.top, "top", 5, "how many references")
	search.Flags().BoolVar(&o.show, "show", false, "print each hit's text under its line")
	search.Flags().BoolVar(&o.asJSON, "json", false, "print the hits as a JSON array of references")
	search.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return kbIDs(gs, e.getenv)
	}
	search.RunE = func(_ *cobra.Command, args []string) error {
		return exit(cmdKBSearch(gs, o, args[0], strings.Join(args[1:], " "), e.getenv, e.stdout, e.stderr))
	}
	cmd.AddCommand(index, search)
	return cmd
}

// kbIDs completes a knowledge base's id: the ids of the knowledge bases
// of the configuration the flags given so far (--config) load.
func kbIDs(g *gatewayFlags, getenv func(string) string) ([]cobra.Completion, cobra.ShellCompDirective) {
	cfg, err := g.load(getenv)
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	ids := make([]cobra.Completion, 0, len(cfg.KnowledgeBases))
	for _, c := range cfg.KnowledgeBases {
		ids = append(ids, c.ID)
	}
	return ids, cobra.ShellCompDirectiveNoFileComp
}

// openKB loads the configuration and opens the store and the knowledge
// bases, or says why not on stderr and returns the exit code.
func openKB(ctx context.Context, g *gatewayFlags, getenv func(string) string, stderr io.Writer) (m *kb.Manager, closeStore func(), code int) {
	cfg, err := g.load(getenv)
	if err != nil {
		fmt.Fprintln(stderr, "agentgw:", err)
		return nil, nil, 2
	}
	if len(cfg.KnowledgeBases) == 0 {
		fmt.Fprint(stderr, noKnowledgeBases)
		return nil, nil, 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	st, err := newStore(ctx, cfg, getenv, runtime.GOOS, log)
	if err != nil {
		fmt.Fprintln(stderr, "agentgw kb:", err)
		return nil, nil, 1
	}
	repos, err := newRepos(cfg, getenv, log)
	if err == nil {
		m, err = newKnowledge(ctx, st.Store, cfg, getenv, repos, log)
	}
	if err != nil {
		st.close()
		fmt.Fprintln(stderr, "agentgw kb:", err)
		return nil, nil, 1
	}
	return m, st.close, 0
}

// cmdKBIndex indexes the knowledge bases ids (all when none) now.
func cmdKBIndex(g *gatewayFlags, ids []string, getenv func(string) string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	m, closeStore, code := openKB(ctx, g, getenv, stderr)
	if code != 0 {
		return code
	}
	defer closeStore()
	if len(ids) == 0 {
		ids = m.IDs()
	}
	m.SetProgress(newProgressPrinter(stderr, isTerminal(stderr)))
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

// cmdKBSearch searches the knowledge base id for query and prints the
// hits.
func cmdKBSearch(g *gatewayFlags, o kbSearchOptions, id, query string, getenv func(string) string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	m, closeStore, code := openKB(ctx, g, getenv, stderr)
	if code != 0 {
		return code
	}
	defer closeStore()
	hits, err := m.Search(ctx, id, index.Query{Text: query, TopK: o.top})
	if err != nil {
		fmt.Fprintln(stderr, "agentgw kb:", err)
		return 1
	}
	if o.asJSON {
		refs := make([]contextvars.Reference, 0, len(hits))
		for _, h := range hits {
			refs = append(refs, kb.Reference(h))
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(refs); err != nil {
			fmt.Fprintln(stderr, "agentgw kb: writing the hits:", err)
			return 1
		}
		return 0
	}
	for _, h := range hits {
		c := h.Chunk
		fmt.Fprintf(stdout, "%.3f  %s:%d-%d  %s\n", h.Score, c.FileName, c.StartLine, c.EndLine, c.Symbol)
		if o.show {
			for _, line := range strings.Split(strings.TrimRight(c.Text, "\n"), "\n") {
				fmt.Fprintln(stdout, strings.TrimRight("    "+line, " \t"))
			}
			fmt.Fprintln(stdout)
		}
	}
	return 0
}

// newProgressPrinter returns the progress callback of kb index: on a
// terminal a bar redrawn in place (github.com/schollz/progressbar), one
// per source, otherwise a plain line each time a source passes another
// 10% of its files.
func newProgressPrinter(w io.Writer, terminal bool) func(kb.Progress) {
	last := -1 // the last printed tenth (plain)
	var key string
	var bar *progressbar.ProgressBar
	return func(p kb.Progress) {
		if k := p.KB + "\x00" + p.Source; k != key {
			key, last, bar = k, -1, nil
		}
		if p.Total == 0 {
			return
		}
		if terminal {
			if bar == nil {
				bar = progressbar.NewOptions(p.Total,
					progressbar.OptionSetWriter(w),
					progressbar.OptionSetDescription(p.KB+" "+p.Source),
					progressbar.OptionSetWidth(30),
					progressbar.OptionShowCount(),
					progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }))
			}
			_ = bar.Set(p.Done) // a failed redraw only loses the bar
			return
		}
		pct := p.Done * 100 / p.Total
		tenth := pct / 10
		if tenth == 0 || tenth == last {
			return
		}
		last = tenth
		fmt.Fprintf(w, "indexing %s (%s): %d of %d files (%d%%)\n", p.KB, p.Source, p.Done, p.Total, pct)
	}
}
