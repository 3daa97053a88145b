package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentgw/agentgw/bench/internal/harness"
)

// params are one run's sizes and times.
type params struct {
	duration  time.Duration // the load of each scenario
	streams   int           // concurrent clients
	gap       time.Duration // between the mock's 20 content chunks, for the clients' streams
	runGap    time.Duration // the same for requests without X-Mock-Gap: hand-off and schedule runs
	killEvery time.Duration // a replica killed (or PostgreSQL restarted) this often
	outage    time.Duration // how long PostgreSQL stays down
	settle    time.Duration // the most to wait after the load for queued work to finish
	sample    time.Duration // RSS, goroutines and open files sampled this often
	every     time.Duration // the schedule's interval
	heartbeat time.Duration // handoffs.heartbeat and scheduler.heartbeat; 0: the gateway's default
	keep      bool          // keep the work directory
}

// env is what every scenario shares: the repository, the work directory
// with the binaries, and the mock model platform.
type env struct {
	root, work string
	procs      *harness.Set // the mock
	mock       *harness.Process
	cfg        string // the gateways' config file
	log        io.Writer
}

// gatewayConfig is the gateways' config: the knowledge base the recall
// agent reads, and schedules as frequent as the soak needs.
const gatewayConfig = `knowledgeBases:
  - id: soakdocs
    name: Soak docs
    sources:
      - dir: %s
        paths: ["*.md"]
scheduler:
  minInterval: 1s
  tick: 1s
`

// heartbeatConfig sets how often hand-off and schedule runs renew their
// leases (a dead process's runs are taken over after 3 of them).
const heartbeatConfig = `  heartbeat: %[1]s
handoffs:
  heartbeat: %[1]s
`

// stateSecret signs the action states of every gateway of a run, so that a
// replica answers another's confirm.
const stateSecret = "soak-state-secret-0123456789abcdef"

// setup builds agentgw and the mock into a new work directory and starts
// the mock.
func setup(ctx context.Context, p params, log io.Writer) (*env, error) {
	if _, err := harness.RaiseFDLimit(); err != nil {
		return nil, err
	}
	root, err := harness.RepoRoot(ctx)
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "agentgw-soak-")
	if err != nil {
		return nil, fmt.Errorf("creating the work directory: %w", err)
	}
	e := &env{root: root, work: work, procs: &harness.Set{Dir: work}, log: log}
	fmt.Fprintf(log, "building agentgw and mockupstream into %s\n", work)
	if err := harness.Build(ctx, work,
		harness.Packages{Dir: root, Pkgs: []string{"./cmd/agentgw"}},
		harness.Packages{Dir: filepath.Join(root, "bench"), Pkgs: []string{"./mockupstream"}}); err != nil {
		return e, err
	}
	e.cfg = filepath.Join(work, "gateway.yaml")
	cfg := fmt.Appendf(nil, gatewayConfig, filepath.Join(root, "bench", "soak", "kb"))
	if p.heartbeat > 0 {
		cfg = fmt.Appendf(cfg, heartbeatConfig, p.heartbeat)
	}
	if err := os.WriteFile(e.cfg, cfg, 0o644); err != nil {
		return e, fmt.Errorf("writing the gateway config: %w", err)
	}
	e.mock, err = e.procs.Start(ctx, "mockupstream", filepath.Join(work, "bin", "mockupstream"), []string{"-addr", "127.0.0.1:0", "-h2-streams", "10000", "-gap", p.runGap.String()}, nil, "stdout", false)
	return e, err
}

// close stops the mock and removes the work directory unless kept.
func (e *env) close(keep bool) {
	e.procs.StopAll()
	if keep {
		fmt.Fprintf(e.log, "work directory kept (binaries, logs, data): %s\n", e.work)
		return
	}
	_ = os.RemoveAll(e.work)
}

// replica is one gateway process and how the clients reach it.
type replica struct {
	proc *harness.Process
	gw   *gateway
}

// startGateway runs agentgw serve on free loopback ports, on SQLite in its
// data directory, or on the store URL.
func (e *env) startGateway(ctx context.Context, ps *harness.Set, name, storeURL string) (*replica, error) {
	// Both addresses outlive a kill: the process restarts on them.
	addr, err := harness.StableAddr()
	if err != nil {
		return nil, err
	}
	debug, err := harness.StableAddr()
	if err != nil {
		return nil, err
	}
	args := []string{"serve", "--addr", addr, "--agents", filepath.Join(e.root, "bench", "soak", "agents"),
		"--upstream", "http://" + e.mock.Addr, "--debug-addr", debug, "--data", filepath.Join(ps.Dir, name+"-data")}
	env := []string{"AGENTGW_CONFIG=" + e.cfg, "AGENTGW_LOG_LEVEL=warn", "AGENTGW_LOG_FORMAT=json", "AGENTGW_STATE_SECRET=" + stateSecret}
	if storeURL != "" {
		env = append(env, "AGENTGW_STORE_URL="+storeURL)
	}
	p, err := ps.Start(ctx, name, filepath.Join(e.work, "bin", "agentgw"), args, env, addr, false)
	if err != nil {
		return nil, err
	}
	p.DebugAddr = debug
	return &replica{proc: p, gw: &gateway{name: name, url: "http://" + addr}}, nil
}

// report is one scenario's figures and what went wrong.
type report struct {
	name     string
	lines    []string  // figures, in order
	failures []failure // broken promises: each fails the run
}

// failure is one broken promise: its kind (a short key, e.g.
// handoff-not-done) and what the harness saw.
type failure struct {
	kind, msg string
}

// add adds a line of figures.
func (r *report) add(format string, a ...any) { r.lines = append(r.lines, fmt.Sprintf(format, a...)) }

// fail records a broken promise of the given kind.
func (r *report) fail(kind, format string, a ...any) {
	r.failures = append(r.failures, failure{kind, fmt.Sprintf(format, a...)})
}

// scenario is what differs between the four: the gateways, the store and
// the fault injected during the load.
type scenario struct {
	name     string
	replicas int
	postgres bool
	fault    string // "", "kill" (a replica killed -9 and restarted), "pg" (PostgreSQL restarted)
	// allowed are the error codes clients may get meanwhile.
	allowed map[string]bool
}

// scenarios are the four of issue 28 item 2.
var scenarios = map[string]scenario{
	"single":      {name: "single", replicas: 1},
	"sqlite-kill": {name: "sqlite-kill", replicas: 1, fault: "kill"},
	"replicas":    {name: "replicas", replicas: 3, postgres: true, fault: "kill"},
	"pg-restart":  {name: "pg-restart", replicas: 3, postgres: true, fault: "pg", allowed: map[string]bool{"STORE_UNAVAILABLE": true}},
}

// scenarioOrder is the order of -scenario all.
var scenarioOrder = []string{"single", "sqlite-kill", "replicas", "pg-restart"}

// runScenario starts the scenario's gateways (and PostgreSQL), runs the
// mix for p.duration with its fault, lets queued work settle and counts
// what was sent against what the gateways kept.
func (e *env) runScenario(ctx context.Context, sc scenario, p params) (rep *report, err error) {
	rep = &report{name: sc.name}
	dir := filepath.Join(e.work, sc.name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return rep, fmt.Errorf("creating %s: %w", dir, err)
	}
	ps := &harness.Set{Dir: dir}
	defer ps.StopAll()
	var pg *postgres
	storeURL := ""
	if sc.postgres {
		if pg, err = startPostgres(ctx, dir); err != nil {
			return rep, fmt.Errorf("starting PostgreSQL: %w", err)
		}
		defer func() { _ = pg.stop(context.WithoutCancel(ctx), "fast") }()
		storeURL = pg.url()
	}
	var reps []*replica
	for i := range sc.replicas {
		r, err := e.startGateway(ctx, ps, fmt.Sprintf("agentgw-%d", i+1), storeURL)
		if err != nil {
			return rep, err
		}
		reps = append(reps, r)
	}
	f := &fleet{}
	for _, r := range reps {
		f.gws = append(f.gws, r.gw)
	}
	api := newHTTPClient(64)
	m := &mixer{f: f, c: newHTTPClient(p.streams + 16), t: newTally(), run: fmt.Sprintf("%s-%d", sc.name, time.Now().Unix()), gap: p.gap, timeout: 2 * time.Minute}
	sched, err := createSchedule(ctx, api, f.gws[0], m.run, p.every)
	if err != nil {
		return rep, err
	}
	fmt.Fprintf(e.log, "%s: %d gateway(s)%s, %d streams for %s\n", sc.name, len(reps), map[bool]string{true: " on PostgreSQL", false: " on SQLite"}[sc.postgres], p.streams, p.duration)

	// The load, the fault, the samples and the schedule's runs.
	loadCtx, stop := context.WithTimeout(ctx, p.duration)
	defer stop()
	smp := &sampler{}
	sch := &schedWatch{runs: map[string]schedRun{}}
	var bg sync.WaitGroup
	start := time.Now()
	bg.Go(func() { smp.loop(loadCtx, reps, p.sample, start) })
	// The schedule's runs are watched until the check, not only during
	// the load: the API lists the newest runs only, so a run seen RUNNING
	// as the load ended and not read again before it left that list would
	// look left RUNNING (what F7 was).
	schedCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	var watch sync.WaitGroup
	watch.Go(func() { sch.loop(schedCtx, api, f, sched) })
	faults := 0
	var faultErr error
	switch sc.fault {
	case "kill":
		bg.Go(func() { faults, faultErr = killLoop(loadCtx, ps, reps, p.killEvery, e.log) })
	case "pg":
		bg.Go(func() { faults, faultErr = pgLoop(loadCtx, pg, reps, api, p, e.log, rep) })
	}
	var clients sync.WaitGroup
	for i := range p.streams {
		clients.Go(func() { m.client(loadCtx, i) })
		if i%100 == 99 {
			time.Sleep(20 * time.Millisecond) // open them over a moment, not in one burst
		}
	}
	clients.Wait()
	bg.Wait()
	elapsed := time.Since(start)
	if faultErr != nil {
		return rep, faultErr
	}
	for _, r := range reps {
		smp.take(context.WithoutCancel(ctx), r, elapsed)
	}
	if sc.fault == "kill" {
		rep.add("replicas killed -9 and restarted: %d", faults)
	}
	if sc.fault == "pg" {
		rep.add("PostgreSQL restarts (down %s each): %d", p.outage, faults)
	}
	e.countStreams(rep, m.t, sc, elapsed)
	// What was accepted must be done once: hand-offs, turns, resumes, schedule runs.
	checkLedger(ctx, rep, api, f, m.t, p.settle, e.log)
	sch.stop(ctx, api, f, sched, p.settle)
	stopWatch()
	watch.Wait()
	sch.check(rep, time.Since(start), p.every, sc.fault != "")
	smp.summarize(rep)
	return rep, nil
}

// countStreams adds the clients' outcomes to the report and fails it on any
// the scenario does not allow.
func (e *env) countStreams(rep *report, t *tally, sc scenario, elapsed time.Duration) {
	var total [numOutcomes]int
	rep.add("| item | streams | ok | error frame | refused | cut by kill | broken |")
	rep.add("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for k := range numKinds {
		o := t.outcomes[k]
		n := 0
		for i := range numOutcomes {
			n += o[i]
			total[i] += o[i]
		}
		rep.add("| %s | %d | %d | %d | %d | %d | %d |", kindNames[k], n, o[okStream], o[errFrame], o[refused], o[cutByKill], o[broken])
	}
	all := 0
	for _, n := range total {
		all += n
	}
	rep.add("| **all** | %d | %d | %d | %d | %d | %d |", all, total[okStream], total[errFrame], total[refused], total[cutByKill], total[broken])
	rep.add("streams per second: %.1f over %s; requests sent again after a refused connection: %d", float64(all)/elapsed.Seconds(), elapsed.Round(time.Second), t.retries.Load())
	rep.add("requests first on a pooled connection silent over %s since it was dialed (F9): %d, the oldest %s", spareSilence, t.spares, t.spareOldest.Round(time.Millisecond))
	if len(t.codes) > 0 {
		var codes []string
		for c, n := range t.codes {
			codes = append(codes, fmt.Sprintf("%s ×%d", c, n))
		}
		rep.add("error codes: %s", strings.Join(codes, ", "))
	}
	if total[okStream] == 0 {
		rep.fail("streams-none", "no stream completed")
	}
	if total[broken] > 0 {
		rep.fail("streams-broken", "%d broken streams (no terminator without a kill, two error frames, …): %s", total[broken], strings.Join(t.broken, "; "))
	}
	if sc.fault == "" && total[cutByKill] > 0 {
		rep.fail("streams-cut", "%d streams cut off without a fault", total[cutByKill])
	}
	for c, n := range t.codes {
		if !sc.allowed[c] {
			rep.fail("error-code", "%d answers with error code %s (the first: %s)", n, c, t.samples[c])
		}
	}
}

// createSchedule makes the run's schedule: the worker agent every interval.
func createSchedule(ctx context.Context, c *http.Client, gw *gateway, run string, every time.Duration) (string, error) {
	var s struct {
		ID string `json:"id"`
	}
	body := map[string]any{"name": "soak-" + run, "every": every.String(), "agent": "worker", "prompt": "scheduled soak run", "missed": "runOnce"}
	if _, err := apiCall(ctx, c, http.MethodPost, gw.url+"/schedules", body, &s); err != nil {
		return "", fmt.Errorf("creating the schedule: %w", err)
	}
	return s.ID, nil
}

// killLoop kills a replica with SIGKILL every interval, round robin, and
// restarts it at once, until ctx ends. It returns how many it killed.
func killLoop(ctx context.Context, ps *harness.Set, reps []*replica, every time.Duration, log io.Writer) (int, error) {
	n := 0
	for {
		select {
		case <-ctx.Done():
			return n, nil
		case <-time.After(every):
		}
		r := reps[n%len(reps)]
		r.gw.down.Store(true)
		r.gw.gen.Add(1)
		killed := time.Now()
		r.proc.Kill()
		n++
		t0 := time.Now()
		if err := ps.Restart(context.WithoutCancel(ctx), r.proc); err != nil {
			return n, fmt.Errorf("restarting %s: %w", r.gw.name, err)
		}
		r.gw.down.Store(false)
		// The times, UTC, to set against a broken stream's (its detail).
		fmt.Fprintf(log, "  killed %s -9 at %s, back in %s\n", r.gw.name, killed.UTC().Format("15:04:05.000"), time.Since(t0).Round(time.Millisecond))
	}
}

// pgLoop restarts PostgreSQL every interval (down for p.outage), then
// checks that every replica serves a request needing the store again
// within 30 seconds, without being restarted.
func pgLoop(ctx context.Context, pg *postgres, reps []*replica, c *http.Client, p params, log io.Writer, rep *report) (int, error) {
	n := 0
	for {
		select {
		case <-ctx.Done():
			return n, nil
		case <-time.After(p.killEvery):
		}
		t0 := time.Now()
		if err := pg.restart(ctx, p.outage); err != nil {
			return n, fmt.Errorf("restarting PostgreSQL: %w", err)
		}
		n++
		back := time.Now()
		var worst time.Duration
		for _, r := range reps {
			d, err := waitStore(context.WithoutCancel(ctx), c, r.gw, 30*time.Second)
			if err != nil {
				rep.fail("store-recovery", "%s did not serve the store again within 30s of PostgreSQL's restart: %v", r.gw.name, err)
			}
			worst = max(worst, d)
		}
		fmt.Fprintf(log, "  PostgreSQL down %s, every replica serving the store %s after it was back\n", back.Sub(t0).Round(time.Millisecond), worst.Round(time.Millisecond))
		rep.add("PostgreSQL restart %d: every replica served the store again %s after it was back", n, worst.Round(time.Millisecond))
	}
}

// waitStore polls POST /contexts on gw until it answers 201.
func waitStore(ctx context.Context, c *http.Client, gw *gateway, limit time.Duration) (time.Duration, error) {
	t0 := time.Now()
	var err error
	for time.Since(t0) < limit {
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err = apiCall(actx, c, http.MethodPost, gw.url+"/contexts", map[string]any{"contextId": "probe-" + newUUID()}, nil)
		cancel()
		if err == nil {
			return time.Since(t0), nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return time.Since(t0), err
}
