package main

import (
	"fmt"
	"io"
	"log/slog"
	"slices"

	"github.com/spf13/cobra"
)

// newExportCmd is agentgw export.
func newExportCmd(e cliEnv) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export NAME",
		Short: "Print an agent's definition as the platform's JSON",
		Long: `Print the definition of the agent NAME in the model platform's JSON shape,
with service.endpoint the gateway's URL (--endpoint, else the config's
publicURL, else http://localhost plus --addr).`,
		Example: `  agentgw export hello
  agentgw export reviewer --agents ./agents --endpoint https://agents.example`,
		Args: exactArgs("NAME"),
	}
	g := newGatewayFlags(cmd.Flags(), withAgents|withAddr)
	endpoint := cmd.Flags().String("endpoint", "", "service.endpoint to write (default: publicURL from the config, else http://localhost plus --addr)")
	cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return agentNames(g, e.getenv)
	}
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		return exit(cmdExport(g, *endpoint, args[0], e.getenv, e.stdout, e.stderr))
	}
	return cmd
}

// cmdExport prints the agent name's definition in the platform's JSON
// shape.
func cmdExport(g *gatewayFlags, endpoint, name string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, err := g.load(getenv)
	if err != nil {
		fmt.Fprintln(stderr, "agentgw:", err)
		return 2
	}
	set := newLoader(cfg, getenv, services{}, slog.New(slog.DiscardHandler)).read()
	diags := set.problems
	for _, a := range set.agents {
		if a.Name() != name {
			continue
		}
		url := firstNonEmpty(endpoint, cfg.PublicURL, localURL(cfg.Addr))
		data, err := a.ExportJSON(url)
		if err != nil {
			fmt.Fprintln(stderr, "agentgw:", err)
			return 1
		}
		_, _ = stdout.Write(data)
		return 0
	}
	fmt.Fprint(stderr, diags.String())
	fmt.Fprintf(stderr, "agentgw: no agent named %q\n", name)
	return 1
}

// agentNames completes an agent's name: the names of the agents the
// flags given so far (--config, --agents) load.
func agentNames(g *gatewayFlags, getenv func(string) string) ([]cobra.Completion, cobra.ShellCompDirective) {
	cfg, err := g.load(getenv)
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	set := newLoader(cfg, getenv, services{}, slog.New(slog.DiscardHandler)).read()
	names := make([]cobra.Completion, 0, len(set.agents))
	for _, a := range set.agents {
		names = append(names, a.Name())
	}
	slices.Sort(names)
	return names, cobra.ShellCompDirectiveNoFileComp
}

// localURL turns a listen address into a URL on this host.
func localURL(addr string) string {
	if addr == "" {
		addr = ":" + defaultPort
	}
	if len(addr) > 0 && addr[0] == ':' {
		return "http://localhost" + addr
	}
	return "http://" + addr
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
