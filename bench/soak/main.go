// Command soak is the gateway's soak and fault harness (issue 28 item 2): it
// builds agentgw and the bench's mock model platform, starts them on
// loopback, and runs a mix of clients for a bounded time through one
// gateway or three replicas — plain relays, plans with a tool step, consent
// pauses resumed by feedback, conversations, hand-offs (over the API and
// from a plan's step), recalls from a knowledge base, and a schedule —
// while it kills replicas with SIGKILL or restarts PostgreSQL. At the end it
// counts what the clients were told against what the gateways kept, through
// their APIs, and samples each gateway's RSS, goroutines and open files.
//
//	go run ./bench/soak [-duration 10m] [-streams 2000] [-scenario single|sqlite-kill|replicas|pg-restart|all]
//
// It prints one markdown report on stdout (progress on stderr) and exits 1
// when a scenario broke a promise. bench/soak/README.md has the scenarios,
// what each checks, and the figures of the full run.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	p, names, err := parseFlags(os.Args[1:], os.Stderr)
	if err != nil {
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	reps, err := run(ctx, p, names, os.Stderr)
	for _, r := range reps {
		writeReport(os.Stdout, r)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	for _, r := range reps {
		if len(r.failures) > 0 {
			os.Exit(1)
		}
	}
}

// parseFlags reads the command line.
func parseFlags(args []string, out io.Writer) (params, []string, error) {
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.SetOutput(out)
	var p params
	fs.DurationVar(&p.duration, "duration", 10*time.Minute, "load per scenario")
	fs.IntVar(&p.streams, "streams", 2000, "concurrent clients")
	fs.DurationVar(&p.gap, "gap", 100*time.Millisecond, "pause between the mock's 20 content chunks (a stream lasts about 20 of them)")
	fs.DurationVar(&p.runGap, "run-gap", 0, "the same for the hand-off and schedule runs (the mock's default: they send no X-Mock-Gap)")
	fs.DurationVar(&p.killEvery, "kill-every", time.Minute, "a replica killed -9 (or PostgreSQL restarted) this often")
	fs.DurationVar(&p.outage, "outage", 5*time.Second, "how long PostgreSQL stays down in pg-restart")
	fs.DurationVar(&p.settle, "settle", 2*time.Minute, "the most to wait after the load for queued hand-offs to finish")
	fs.DurationVar(&p.sample, "sample", time.Minute, "RSS, goroutines and open files sampled this often")
	fs.DurationVar(&p.every, "every", 5*time.Second, "the schedule's interval")
	fs.DurationVar(&p.heartbeat, "heartbeat", 0, "handoffs.heartbeat and scheduler.heartbeat in the gateways' config (0: the gateway's default)")
	fs.BoolVar(&p.keep, "keep", false, "keep the work directory (binaries, logs, data)")
	scenario := fs.String("scenario", "single", "single, sqlite-kill, replicas, pg-restart, or all (comma-separated)")
	if err := fs.Parse(args); err != nil {
		return p, nil, err
	}
	var names []string
	for n := range strings.SplitSeq(*scenario, ",") {
		if n == "all" {
			names = append(names, scenarioOrder...)
			continue
		}
		if _, ok := scenarios[n]; !ok {
			fmt.Fprintf(out, "soak: unknown scenario %q (single, sqlite-kill, replicas, pg-restart, all)\n", n)
			return p, nil, errors.New("unknown scenario")
		}
		names = append(names, n)
	}
	if p.streams < 1 || p.duration <= 0 {
		fmt.Fprintln(out, "soak: -streams and -duration must be positive")
		return p, nil, errors.New("bad flags")
	}
	return p, names, nil
}

// run builds and starts what the scenarios share and runs them in order.
func run(ctx context.Context, p params, names []string, log io.Writer) (reps []*report, err error) {
	e, err := setup(ctx, p, log)
	if e != nil {
		defer func() { e.close(p.keep || (err != nil && ctx.Err() == nil) || failed(reps)) }()
	}
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		r, err := e.runScenario(ctx, scenarios[n], p)
		reps = append(reps, r)
		if err != nil {
			return reps, fmt.Errorf("%s: %w", n, err)
		}
		fmt.Fprintf(log, "%s: %d failures\n", n, len(r.failures))
	}
	return reps, nil
}

// failed reports whether a scenario broke a promise (its logs are kept).
func failed(reps []*report) bool {
	for _, r := range reps {
		if len(r.failures) > 0 {
			return true
		}
	}
	return false
}

// writeReport writes one scenario's report as markdown.
func writeReport(w io.Writer, r *report) {
	fmt.Fprintf(w, "## %s\n\n", r.name)
	inTable := false
	for _, l := range r.lines {
		table := strings.HasPrefix(l, "|")
		if table != inTable && inTable {
			fmt.Fprintln(w)
		}
		if table {
			fmt.Fprintln(w, l)
		} else {
			fmt.Fprintf(w, "- %s\n", l)
		}
		inTable = table
	}
	fmt.Fprintln(w)
	if len(r.failures) == 0 {
		fmt.Fprintf(w, "**%s: passed**\n\n", r.name)
		return
	}
	fmt.Fprintf(w, "**%s: %d failures**\n\n", r.name, len(r.failures))
	for _, f := range r.failures {
		fmt.Fprintf(w, "- FAIL (%s): %s\n", f.kind, f.msg)
	}
	fmt.Fprintln(w)
}
