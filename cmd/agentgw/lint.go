package main

import (
	"fmt"
	"io"
	"log/slog"
)

// cmdLint loads definitions and prints their problems as file:line:col:
// message; it exits 1 when there are errors.
func cmdLint(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	g := newGatewayFlags("lint", stderr)
	g.fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: agentgw lint [DIR|FILE]...   (default: the configured agents, or the embedded examples)")
		g.fs.PrintDefaults()
	}
	if err := g.fs.Parse(args); err != nil {
		return 2
	}
	cfg, err := g.load(getenv)
	if err != nil {
		fmt.Fprintln(stderr, "agentgw:", err)
		return 2
	}
	ld := newLoader(cfg, getenv, services{}, slog.New(slog.DiscardHandler))
	if paths := g.fs.Args(); len(paths) > 0 {
		ld.paths = paths
	}
	set := ld.read()
	diags := set.problems
	fmt.Fprint(stdout, diags.String())
	errs := diags.Errors()
	fmt.Fprintf(stderr, "%d agents loaded, %d errors, %d warnings\n", len(set.agents), errs, len(diags)-errs)
	if errs > 0 {
		return 1
	}
	return 0
}
