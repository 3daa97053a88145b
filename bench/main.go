// Command bench measures what agentgw adds between an IDE and the model:
// first-byte time, per-chunk latency, throughput at saturation, CPU per
// chunk and the memory of idle open streams, against a direct connection to
// a mock model platform and against a bare httputil.ReverseProxy, all in one
// run on loopback. It prints a markdown table; bench/README.md explains it.
//
//	go run ./bench          # a few minutes, stable numbers
//	go run ./bench -quick   # a ~30 s smoke run
//	go run ./bench -mock-addr 127.0.0.1:9099 -target http://127.0.0.1:8090/v1/chat/completions
//	                        # also another gateway, pointed at the mock
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"
)

// config is the run's settings (the flags).
type config struct {
	latencyStreams int
	// recallChunks is the recall path's corpus size (-recall-chunks), 0 for
	// none.
	recallChunks int
	warmup       int
	concurrency  int
	satRounds    int
	satDuration  time.Duration
	idleStreams  int
	// settle is how long after the last scenario the resident memory is
	// read for the last time (-settle).
	settle       time.Duration
	handoffs     int // sequential hand-offs
	handoffBurst int // hand-offs posted at once
	jsonPath     string
	profileDir   string
	perfHz       int
	perfTrace    bool
	keep         bool
	skip         map[string]bool
	// peer is another gateway's OpenAI chat completions URL (-target):
	// measured as a fourth column; peerPID, when set, is its process for
	// the CPU figure.
	peer     string
	peerPID  int
	mockAddr string
	// pg is a PostgreSQL server's URL (-pg): one more agentgw on a fresh
	// database of it for the stateful and hand-off rows, and with
	// recallChunks a recall gateway on another.
	pg string
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "a ~30 s smoke run (smaller defaults for the flags not given)")
	fs.IntVar(&c.latencyStreams, "latency-streams", 300, "sequential streams per path in the latency scenario")
	fs.IntVar(&c.recallChunks, "recall-chunks", 0, "the recall path: index this many generated Go functions and measure a request recalling from them, on SQLite and with -pg on PostgreSQL (0: no recall path; 100000 is issue 29's row, minutes to index)")
	fs.IntVar(&c.concurrency, "concurrency", 50, "concurrent workers in the saturation scenario")
	fs.IntVar(&c.satRounds, "rounds", 5, "saturation rounds per path (after a warm-up round)")
	fs.DurationVar(&c.satDuration, "round", 4*time.Second, "length of one saturation round of one path")
	fs.IntVar(&c.idleStreams, "idle-streams", 10000, "streams held open in the idle scenario")
	fs.DurationVar(&c.settle, "settle", 30*time.Second, "after the last scenario, read the resident memory of the proxy and agentgw 3 times over this long and report the last reading")
	fs.IntVar(&c.handoffs, "handoffs", 200, "hand-offs posted one at a time in the hand-off scenario")
	fs.IntVar(&c.handoffBurst, "handoff-burst", 2000, "hand-offs posted by the concurrent workers (-concurrency) in the hand-off scenario")
	fs.StringVar(&c.jsonPath, "json", "", "also write the raw results to this `file`")
	fs.StringVar(&c.profileDir, "profile", "", "write CPU profiles of the proxy and agentgw in the latency and saturation scenarios (extra, uncounted streams) and of the gateway over the first 10 s of the hand-off burst (DIR/agentgw-handoff.cpu.pprof, agentgw-pg-handoff.cpu.pprof), to this `directory`")
	fs.IntVar(&c.perfHz, "perf-hz", 0, "with -profile, also sample the latency profile's rounds with Linux perf at this `frequency` (DIR/<path>-latency.perf.pprof); 5000 is a sample every 200 µs of CPU")
	fs.BoolVar(&c.perfTrace, "perf-trace", false, "after the latency scenario, trace the reads and writes of the proxy and agentgw with Linux perf while 8 s of more rounds run (perf gets 2 s to attach) and add the time each spends between them to the table")
	fs.BoolVar(&c.keep, "keep", false, "keep the work directory (binaries, process logs) and, with -pg, the databases")
	fs.StringVar(&c.peer, "target", "", "also measure another gateway, its OpenAI chat completions `URL` (e.g. http://127.0.0.1:8090/v1/chat/completions), pointed at the mock (-mock-addr): a fourth column")
	fs.IntVar(&c.peerPID, "target-pid", 0, "with -target, the other gateway's process `id`, for its CPU per chunk")
	fs.StringVar(&c.mockAddr, "mock-addr", "127.0.0.1:0", "listen `address` of the mock model platform (fix it to point another gateway at it)")
	fs.StringVar(&c.pg, "pg", "", "a PostgreSQL server's `URL` (postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable): also measure the stateful turn and the hand-offs on a fresh database of it, and with -recall-chunks the recall path on another (created with psql, dropped at the end unless -keep)")
	skip := fs.String("skip", "", "comma-separated scenarios and paths to skip: "+strings.Join(skippable, ", "))
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	// The flag set reports its own errors; these are reported alike.
	invalid := func(err error) error {
		fmt.Fprintln(stderr, "bench:", err)
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *quick {
		quickDefault(set, "latency-streams", &c.latencyStreams, 40)
		quickDefault(set, "rounds", &c.satRounds, 2)
		quickDefault(set, "idle-streams", &c.idleStreams, 2000)
		quickDefault(set, "handoffs", &c.handoffs, 40)
		quickDefault(set, "handoff-burst", &c.handoffBurst, 300)
		if !set["round"] {
			c.satDuration = time.Second
		}
		if !set["settle"] {
			c.settle = 6 * time.Second
		}
	}
	if c.settle <= 0 {
		return nil, invalid(fmt.Errorf("-settle: %s is not positive", c.settle))
	}
	if c.perfHz < 0 {
		return nil, invalid(fmt.Errorf("-perf-hz: %d is negative", c.perfHz))
	}
	if c.perfHz > 0 && c.profileDir == "" {
		return nil, invalid(errors.New("-perf-hz needs -profile DIR"))
	}
	if c.perfHz > 0 || c.perfTrace {
		if _, err := exec.LookPath("perf"); err != nil {
			return nil, invalid(fmt.Errorf("-perf-hz and -perf-trace need Linux perf: %w (Debian: apt-get install linux-perf)", err))
		}
	}
	if c.peer != "" {
		u, err := url.Parse(c.peer)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, invalid(fmt.Errorf("-target: %q is not an http(s) URL", c.peer))
		}
	}
	if c.peerPID != 0 && c.peer == "" {
		return nil, invalid(errors.New("-target-pid needs -target URL"))
	}
	c.warmup = max(c.latencyStreams/20, 3)
	c.skip = map[string]bool{}
	for _, s := range splitList(*skip) {
		if !slices.Contains(skippable, s) {
			return nil, invalid(fmt.Errorf("-skip: unknown scenario %q", s))
		}
		c.skip[s] = true
	}
	return c, nil
}

// skippable are what -skip takes: the scenarios, and the paths only some
// rows use (openai: the OpenAI endpoint; stateful: the conversation turn;
// usage: a gateway recording usage with a team budget; governed: one with
// keys, usage, a budget and the content guard).
var skippable = []string{"latency", "saturation", "handoff", "idle", "openai", "stateful", "usage", "governed"}

func quickDefault(set map[string]bool, name string, v *int, quick int) {
	if !set[name] {
		*v = quick
	}
}

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if err != nil {
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := runBench(ctx, cfg, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		stop()
		os.Exit(1)
	}
	writeHeader(os.Stdout, res)
	writeTable(os.Stdout, res)
	if cfg.jsonPath != "" {
		if err := writeJSON(cfg.jsonPath, res); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
	}
}
