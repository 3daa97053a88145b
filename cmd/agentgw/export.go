package main

import (
	"fmt"
	"io"
	"log/slog"
)

// cmdExport prints one agent's definition in the platform's JSON shape.
func cmdExport(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	g := newGatewayFlags("export", stderr)
	endpoint := g.fs.String("endpoint", "", "service.endpoint to write (default: publicURL from the config, else http://localhost plus --addr)")
	if err := g.fs.Parse(args); err != nil {
		return 2
	}
	if g.fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: agentgw export [--agents DIR]... [--endpoint URL] NAME")
		return 2
	}
	cfg, err := g.load(getenv)
	if err != nil {
		fmt.Fprintln(stderr, "agentgw:", err)
		return 2
	}
	set := newLoader(cfg, getenv, services{}, slog.New(slog.DiscardHandler)).read()
	diags := set.problems
	name := g.fs.Arg(0)
	for _, a := range set.agents {
		if a.Name() != name {
			continue
		}
		url := firstNonEmpty(*endpoint, cfg.PublicURL, localURL(cfg.Addr))
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
