package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"strings"

	"github.com/schollz/progressbar/v3"

	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/knowledge/index"
	"github.com/agentgw/agentgw/knowledge/kb"
)

const kbUsage = `usage: agentgw kb index [ID]...          index the knowledge bases (all, or those named) now
       agentgw kb search [--top N] [--show] [--json] ID QUERY   search one as an agent's recall does
(with the gateway's flags: --config, --data, …)
kb index shows its progress on stderr: a bar on a terminal, else a line
at every 10% of a source's files. kb search prints a line per hit;
--show adds each hit's text under it, --json prints the hits as a JSON
array of references (those of POST /knowledge-bases/{id}/search).
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
	var show, asJSON bool
	if sub == "search" {
		g.fs.IntVar(&top, "top", 5, "how many references")
		g.fs.BoolVar(&show, "show", false, "print each hit's text under its line")
		g.fs.BoolVar(&asJSON, "json", false, "print the hits as a JSON array of references")
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
		m.SetProgress(newProgressPrinter(stderr, isTerminal(stderr)))
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
	if asJSON {
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
		if show {
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
