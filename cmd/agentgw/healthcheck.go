package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"
)

// newHealthcheckCmd is agentgw healthcheck.
func newHealthcheckCmd(e cliEnv) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "healthcheck",
		Short: "Ask a running gateway whether it is healthy",
		Long: `Ask a running gateway's /healthz and exit 0 when it answers 200 OK, else 1:
the container's HEALTHCHECK, which has no curl to use.`,
		Example: `  agentgw healthcheck --addr :18080`,
		Args:    cobra.NoArgs,
	}
	addr := cmd.Flags().String("addr", firstNonEmpty(e.getenv("AGENTGW_ADDR"), ":18080"), "the gateway's listen `address` (env AGENTGW_ADDR)")
	timeout := cmd.Flags().Duration("timeout", 3*time.Second, "how long to wait")
	cmd.RunE = func(*cobra.Command, []string) error {
		return exit(cmdHealthcheck(*addr, *timeout, e.stderr))
	}
	return cmd
}

// cmdHealthcheck asks a running gateway's /healthz and exits 0 when it
// answers 200: the container HEALTHCHECK, which has no curl to use.
func cmdHealthcheck(addr string, timeout time.Duration, stderr io.Writer) int {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		fmt.Fprintln(stderr, "healthcheck:", err)
		return 2
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+net.JoinHostPort(host, port)+"/healthz", nil)
	if err != nil {
		fmt.Fprintln(stderr, "healthcheck:", err)
		return 2
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(stderr, "healthcheck:", err)
		return 1
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintln(stderr, "healthcheck:", resp.Status)
		return 1
	}
	return 0
}
