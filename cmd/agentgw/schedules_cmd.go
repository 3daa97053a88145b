package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

// newSchedulesCmd is agentgw schedules.
func newSchedulesCmd(e cliEnv) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "schedules",
		Short: "List a running gateway's schedules",
		Long: `List a running gateway's schedules (GET /schedules): name, when, enabled,
next run, last run and its outcome, run count, and where it is defined.`,
		Example: `  agentgw schedules --url http://localhost:18080`,
		Args:    cobra.NoArgs,
	}
	base := cmd.Flags().String("url", firstNonEmpty(e.getenv("AGENTGW_URL"), "http://localhost:18080"), "gateway `URL` (env AGENTGW_URL)")
	token := cmd.Flags().String("token", e.getenv("AGENTGW_TOKEN"), "gateway `token` for inbound auth (env AGENTGW_TOKEN)")
	cmd.RunE = func(*cobra.Command, []string) error {
		return exit(cmdSchedules(*base, *token, e.stdout, e.stderr))
	}
	return cmd
}

// cmdSchedules lists the schedules of the gateway at base (GET
// /schedules): name, when, enabled, next run, last run and its outcome,
// run count.
func cmdSchedules(base, token string, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/schedules", nil)
	if err != nil {
		fmt.Fprintln(stderr, "agentgw schedules:", err)
		return 2
	}
	if token != "" {
		req.Header.Set("X-Agentgw-Token", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(stderr, "agentgw schedules: reaching the gateway:", err)
		return 1
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "agentgw schedules: the gateway answered %s: %s\n", resp.Status, strings.TrimSpace(string(data)))
		return 1
	}
	var list struct {
		Schedules []struct {
			Name, Once, Every, Cron, Timezone string
			Enabled                           bool
			NextRun                           *time.Time
			LastRun                           time.Time
			RunCount                          int64
			Source                            string
			Runs                              []struct{ Status, Error string }
		}
	}
	if err := json.Unmarshal(data, &list); err != nil {
		fmt.Fprintln(stderr, "agentgw schedules: reading the answer:", err)
		return 1
	}
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tWHEN\tENABLED\tNEXT RUN\tLAST RUN\tLAST OUTCOME\tRUNS\tDEFINED IN")
	for _, s := range list.Schedules {
		when := firstNonEmpty(s.Cron, firstNonEmpty(s.Every, s.Once))
		switch {
		case s.Cron != "":
			when = "cron " + s.Cron
			if s.Timezone != "" {
				when += " " + s.Timezone
			}
		case s.Every != "":
			when = "every " + s.Every
		case s.Once != "":
			when = "once " + s.Once
		}
		next, last, outcome := "-", "-", "-"
		if s.NextRun != nil {
			next = s.NextRun.UTC().Format(time.RFC3339)
		}
		if !s.LastRun.IsZero() {
			last = s.LastRun.UTC().Format(time.RFC3339)
		}
		if len(s.Runs) > 0 {
			outcome = s.Runs[0].Status
		}
		fmt.Fprintf(w, "%s\t%s\t%v\t%s\t%s\t%s\t%d\t%s\n", s.Name, when, s.Enabled, next, last, outcome, s.RunCount, firstNonEmpty(s.Source, "API"))
	}
	if err := w.Flush(); err != nil {
		return 1
	}
	return 0
}
