package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentgw/agentgw/usage"
)

// newUsageCmd is agentgw usage.
func newUsageCmd(e cliEnv) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "usage",
		Short: "Show what a running gateway's requests cost",
		Long: `Show the tokens and cost of a running gateway's requests (GET /usage), a
line per key, user, team, agent or model (--by), since a time (--since: an
RFC 3339 time, a date YYYY-MM-DD, or a duration back from now such as 24h;
default the start of the month, UTC). An admin token sees every key's usage,
any other key its own. Tokens the gateway counted itself, because the
upstream sent no usage, are counted under ESTIMATED.`,
		Example: `  agentgw usage --by team
  agentgw usage --by model --since 24h --url http://localhost:18080 --token $AGENTGW_TOKEN`,
		Args: cobra.NoArgs,
	}
	base := cmd.Flags().String("url", firstNonEmpty(e.getenv("AGENTGW_URL"), "http://localhost:18080"), "gateway `URL` (env AGENTGW_URL)")
	token := cmd.Flags().String("token", e.getenv("AGENTGW_TOKEN"), "gateway `token` for inbound auth (env AGENTGW_TOKEN)")
	by := cmd.Flags().String("by", usage.ByModel, "group by `key`, user, team, agent or model")
	since := cmd.Flags().String("since", "", "usage since `TIME` (RFC 3339, YYYY-MM-DD, or a duration such as 24h)")
	asJSON := cmd.Flags().Bool("json", false, "print GET /usage's answer as it is")
	cmd.RunE = func(*cobra.Command, []string) error {
		return exit(cmdUsage(*base, *token, *by, *since, *asJSON, e.stdout, e.stderr))
	}
	return cmd
}

// cmdUsage prints GET /usage of the gateway at base as a table.
func cmdUsage(base, token, by, since string, asJSON bool, stdout, stderr io.Writer) int {
	if !usage.ValidBy(by) {
		fmt.Fprintf(stderr, "agentgw usage: --by %q is not one of key, user, team, agent, model\n", by)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	q := url.Values{"by": {by}}
	if since != "" {
		q.Set("since", since)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/usage?"+q.Encode(), nil)
	if err != nil {
		fmt.Fprintln(stderr, "agentgw usage:", err)
		return 2
	}
	if token != "" {
		req.Header.Set("X-Agentgw-Token", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(stderr, "agentgw usage: reaching the gateway:", err)
		return 1
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "agentgw usage: the gateway answered %s: %s\n", resp.Status, strings.TrimSpace(string(data)))
		return 1
	}
	if asJSON {
		fmt.Fprintln(stdout, strings.TrimSpace(string(data)))
		return 0
	}
	var ans usageAnswer
	if err := json.Unmarshal(data, &ans); err != nil {
		fmt.Fprintln(stderr, "agentgw usage: reading the answer:", err)
		return 1
	}
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "%s\tREQUESTS\tTOKENS IN\tTOKENS OUT\tESTIMATED\tCOST $\t\n", strings.ToUpper(ans.By))
	for _, r := range ans.Rows {
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%.4f\t\n", firstNonEmpty(r.Value, "-"), r.Requests, r.TokensIn, r.TokensOut, r.Estimated, r.Cost)
	}
	if err := w.Flush(); err != nil {
		return 1
	}
	fmt.Fprintf(stdout, "since %s\n", ans.Since.Format(time.RFC3339))
	return 0
}
