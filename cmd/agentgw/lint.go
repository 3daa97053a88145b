package main

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/spf13/cobra"
)

// newLintCmd is agentgw lint.
func newLintCmd(e cliEnv) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lint [DIR|FILE]...",
		Short: "Check agent definitions",
		Long: `Check agent definitions: load them as serve does and print their problems
as FILE:LINE:COL: message, then a count on stderr. The exit code is 1 when
there are errors (warnings alone exit 0).

Without arguments, it checks the configured agents (--agents, the config
file's agents, AGENTGW_AGENTS), or the embedded examples.`,
		Example: `  agentgw lint
  agentgw lint ./agents
  agentgw lint ./agents/hello.yaml --config agentgw.yaml`,
	}
	g := newGatewayFlags(cmd.Flags(), withAgents)
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		return exit(cmdLint(g, args, e.getenv, e.stdout, e.stderr))
	}
	return cmd
}

// cmdLint loads definitions (paths, or the configured ones) and prints
// their problems as file:line:col: message; it exits 1 when there are
// errors.
func cmdLint(g *gatewayFlags, paths []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, err := g.load(getenv)
	if err != nil {
		fmt.Fprintln(stderr, "agentgw:", err)
		return 2
	}
	ld := newLoader(cfg, getenv, services{}, slog.New(slog.DiscardHandler))
	if len(paths) > 0 {
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
