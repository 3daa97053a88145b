package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/bench/internal/harness"
)

// runBench builds and starts the servers, runs the scenarios and stops the
// servers again, also when ctx ends early.
func runBench(ctx context.Context, cfg *config, log io.Writer) (res *results, err error) {
	fdLimit, err := harness.RaiseFDLimit()
	if err != nil {
		return nil, err
	}
	root, err := harness.RepoRoot(ctx)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "agentgw-bench-")
	if err != nil {
		return nil, fmt.Errorf("creating the work directory: %w", err)
	}
	defer func() {
		// Keep the process logs when asked to, or when something failed
		// (not when the run was interrupted).
		if cfg.keep || (err != nil && ctx.Err() == nil) {
			fmt.Fprintf(log, "work directory kept (binaries, process logs): %s\n", dir)
			return
		}
		_ = os.RemoveAll(dir)
	}()
	fmt.Fprintf(log, "building agentgw, mockupstream and refproxy into %s\n", dir)
	if err := build(ctx, root, dir); err != nil {
		return nil, err
	}
	// With -pg, a fresh database for agentgw-pg and, with the recall path,
	// one for the recall gateway on PostgreSQL; dropped after the processes
	// stopped (deferred below), kept with -keep.
	var pgStore, pgRecallStore string
	if cfg.pg != "" {
		var done func()
		if pgStore, done, err = benchDatabase(ctx, cfg, "agentgw_bench", log); err != nil {
			return nil, err
		}
		defer done()
		if cfg.recallChunks > 0 {
			if pgRecallStore, done, err = benchDatabase(ctx, cfg, "agentgw_bench_recall", log); err != nil {
				return nil, err
			}
			defer done()
		}
	}
	ps := &harness.Set{Dir: dir}
	defer ps.StopAll()
	st, err := startStack(ctx, ps, root, cfg.mockAddr, pgStore, !cfg.skip["usage"], !cfg.skip["governed"])
	if err != nil {
		return nil, err
	}
	if cfg.recallChunks > 0 {
		if st.recalls, err = startRecalls(ctx, ps, root, "http://"+st.mock.Addr, cfg.recallChunks, pgRecallStore, log); err != nil {
			return nil, fmt.Errorf("the recall path: %w", err)
		}
	}
	fmt.Fprintf(log, "mock model platform: http://%s (an OpenAI base URL; point another gateway's upstream at it)\n", st.mock.Addr)
	res = &results{Machine: describeMachine(ctx, root), Params: params{
		LatencyStreams: cfg.latencyStreams, Concurrency: cfg.concurrency, SatRounds: cfg.satRounds,
		SatDuration: cfg.satDuration, IdleStreams: cfg.idleStreams,
		ChatBody: len(chatBody()), GatewayBody: len(gatewayBody()), Peer: cfg.peer,
	}}
	res.Machine.FDLimit = fdLimit
	if err := runScenarios(ctx, cfg, st, res, log); err != nil {
		return nil, err
	}
	saveMetrics(ctx, st.gw, filepath.Join(dir, "agentgw-metrics.txt"), log)
	return res, nil
}

// benchDatabase creates a fresh database named prefix_<unix ns> on the
// -pg server and returns its URL and what to do at the end: drop it, or
// with -keep (a kept recall gateway needs its index) say it was kept.
func benchDatabase(ctx context.Context, cfg *config, prefix string, log io.Writer) (string, func(), error) {
	db, drop, err := createPGDatabase(ctx, cfg.pg, prefix)
	if err != nil || !cfg.keep {
		return db, drop, err
	}
	return db, func() { fmt.Fprintf(log, "database kept (-keep): %s\n", db) }, nil
}

// saveMetrics writes what the gateway's /metrics (on its debug listener)
// says after the scenarios to path, for a look at its numbers (-keep keeps
// it). A failure is reported, not fatal: the measurements stand.
func saveMetrics(ctx context.Context, p *harness.Process, path string, log io.Writer) {
	body, err := newDebugClient(p.DebugAddr).get(ctx, "/metrics")
	if err == nil {
		err = os.WriteFile(path, body, 0o644)
	}
	if err != nil {
		fmt.Fprintf(log, "agentgw's /metrics not saved: %v\n", err)
		return
	}
	fmt.Fprintf(log, "agentgw's /metrics after the run: %s\n", path)
}

// runScenarios runs the latency, saturation, hand-off and idle scenarios in
// turn.
func runScenarios(ctx context.Context, cfg *config, st *stack, res *results, log io.Writer) error {
	conns := cfg.concurrency + 16
	chat, gw := chatBody(), gatewayBody()
	direct := newTarget(pathDirect, "http://"+st.mock.Addr+"/chat/completions", chat, st.mock.Pid(), conns)
	proxy := newTarget(pathProxy, "http://"+st.proxy.Addr+"/chat/completions", chat, st.proxy.Pid(), conns)
	gateway := newTarget(pathGateway, "http://"+st.gw.Addr+"/agents/bench", gw, st.gw.Pid(), conns)
	gwWarn := newTarget(pathGwWarn, "http://"+st.gwWarn.Addr+"/agents/bench", gw, st.gwWarn.Pid(), conns)
	proxy.dbg, gateway.dbg = newDebugClient(st.proxy.DebugAddr), newDebugClient(st.gw.DebugAddr)
	paths := []*target{direct, proxy, gateway, gwWarn}
	if !cfg.skip["openai"] {
		// The same gateway's OpenAI endpoint, the proxy's request naming
		// an agent command as its model.
		paths = append(paths, newTarget(pathOpenAI, "http://"+st.gw.Addr+"/v1/chat/completions", chatBodyFor(openaiModel), st.gw.Pid(), conns))
	}
	if st.gwGov != nil {
		// The gateway request, on the governed gateway, with its key.
		gov := newTarget(pathGoverned, "http://"+st.gwGov.Addr+"/agents/bench", gw, st.gwGov.Pid(), conns)
		gov.header = http.Header{"Authorization": {"Bearer " + st.govKey}}
		paths = append(paths, gov)
	}
	if st.gwUsage != nil {
		// The agent request again, on the gateway that records usage and
		// holds the caller's team to a budget.
		u := newTarget(pathUsage, "http://"+st.gwUsage.Addr+"/agents/bench", gw, st.gwUsage.Pid(), conns)
		u.token = st.usageKey
		paths = append(paths, u)
	}
	if cfg.peer != "" {
		// Another gateway: the same OpenAI chat request as the proxy's.
		paths = append(paths, newTarget(pathPeer, cfg.peer, chat, cfg.peerPID, conns))
	}
	// The stateful path runs in the latency scenario only: each of its
	// streams first seeds a conversation, which saturation would measure.
	latPaths := paths
	if !cfg.skip["stateful"] {
		stateful := newTarget(pathStateful, "http://"+st.gw.Addr+"/agents/bench", nil, st.gw.Pid(), conns)
		stateful.prepare = statefulPrepare(stateful.client, "http://"+st.gw.Addr)
		latPaths = append(slices.Clip(paths), stateful)
		if st.gwPG != nil {
			// The same pair on PostgreSQL: the plain request and the turn.
			pgBase := "http://" + st.gwPG.Addr
			pgStateful := newTarget(pathPGStateful, pgBase+"/agents/bench", nil, st.gwPG.Pid(), conns)
			pgStateful.prepare = statefulPrepare(pgStateful.client, pgBase)
			latPaths = append(latPaths, newTarget(pathPG, pgBase+"/agents/bench", gw, st.gwPG.Pid(), conns), pgStateful)
		}
	}
	for _, rg := range st.recalls {
		// The recall path: the same request to each recall gateway's
		// recalling agent and to its plain one, in the latency scenario.
		base := "http://" + rg.gw.Addr
		latPaths = append(slices.Clip(latPaths), newTarget(rg.store.plain, base+"/agents/bench", gw, rg.gw.Pid(), conns),
			newTarget(rg.store.recall, base+"/agents/"+recallAgent, gw, rg.gw.Pid(), conns))
		*rg.store.result(res) = rg.info
	}
	// The resident memory of the proxy and agentgw (and of the idle
	// scenario's two), warmed, before any scenario; read again after all.
	probes := []residentProbe{
		{pathProxy, st.proxy.Pid(), proxy.dbg, newTarget(pathProxy, proxy.url, chat, st.proxy.Pid(), 1)},
		{pathGateway, st.gw.Pid(), gateway.dbg, newTarget(pathGateway, gateway.url, gw, st.gw.Pid(), 1)},
	}
	if !cfg.skip["idle"] {
		probes = append(probes,
			residentProbe{idleProxy, st.proxyH2C.Pid(), newDebugClient(st.proxyH2C.DebugAddr),
				newTarget(idleProxy, "http://"+st.proxyH2C.Addr+"/chat/completions", chat, st.proxyH2C.Pid(), 1)},
			residentProbe{idleGateway, st.gwH2C.Pid(), newDebugClient(st.gwH2C.DebugAddr),
				newTarget(idleGateway, "http://"+st.gwH2C.Addr+"/agents/bench", gw, st.gwH2C.Pid(), 1)})
	}
	var err error
	if res.Resident, err = residentStart(ctx, probes, residentWarm, log); err != nil {
		return fmt.Errorf("resident memory at start: %w", err)
	}
	if !cfg.skip["latency"] {
		lo := latencyOptions{streams: cfg.latencyStreams, warmup: cfg.warmup, trace: cfg.perfTrace,
			prof: profiling{dir: cfg.profileDir, perfHz: cfg.perfHz}}
		if lo.upstreamPort, err = urlPort(direct.url); err != nil {
			return err
		}
		fmt.Fprintf(log, "latency: %d streams per path\n", cfg.latencyStreams)
		if res.Latency, err = runLatency(ctx, latPaths, lo, log); err != nil {
			return fmt.Errorf("latency scenario: %w", err)
		}
	}
	if !cfg.skip["saturation"] {
		// The OpenAI endpoint is the gateway's process too: its saturation
		// round is profiled on its own, after the latency scenario, whose
		// profiles are taken of every process at once.
		for _, t := range paths {
			if t.name == pathOpenAI {
				t.dbg = gateway.dbg
			}
		}
		fmt.Fprintf(log, "saturation: %d workers, %d rounds of %s per path\n", cfg.concurrency, cfg.satRounds, cfg.satDuration)
		o := satOptions{conc: cfg.concurrency, rounds: cfg.satRounds, dur: cfg.satDuration, prof: profiling{dir: cfg.profileDir}}
		if res.Saturation, err = runSaturation(ctx, paths, o, log); err != nil {
			return fmt.Errorf("saturation scenario: %w", err)
		}
	}
	for _, t := range latPaths {
		t.client.CloseIdleConnections()
	}
	if !cfg.skip["handoff"] {
		fmt.Fprintf(log, "hand-offs: %d one at a time, then %d from %d posters\n", cfg.handoffs, cfg.handoffBurst, cfg.concurrency)
		o := handoffOptions{sequential: cfg.handoffs, burst: cfg.handoffBurst, conc: cfg.concurrency,
			dbg: newDebugClient(st.gw.DebugAddr), profileSecs: handoffProfileSeconds}
		if cfg.profileDir != "" {
			if err := os.MkdirAll(cfg.profileDir, 0o755); err != nil {
				return fmt.Errorf("creating the profile directory: %w", err)
			}
			o.profile = filepath.Join(cfg.profileDir, pathGateway+"-handoff.cpu.pprof")
		}
		if res.Handoff, err = runHandoffs(ctx, "http://"+st.gw.Addr, o, log); err != nil {
			return fmt.Errorf("hand-off scenario: %w", err)
		}
		if st.gwPG != nil {
			fmt.Fprintln(log, "hand-offs on PostgreSQL")
			o.dbg = newDebugClient(st.gwPG.DebugAddr)
			if o.profile != "" {
				o.profile = filepath.Join(cfg.profileDir, pathPG+"-handoff.cpu.pprof")
			}
			if res.HandoffPG, err = runHandoffs(ctx, "http://"+st.gwPG.Addr, o, log); err != nil {
				return fmt.Errorf("hand-off scenario on PostgreSQL: %w", err)
			}
		}
	}
	if !cfg.skip["idle"] {
		if res.Idle, err = idleScenario(ctx, st, chat, gw, cfg.idleStreams, log); err != nil {
			return fmt.Errorf("idle scenario: %w", err)
		}
	}
	if err := residentAfter(ctx, res.Resident, probes, cfg.settle, residentReadings, log); err != nil {
		return fmt.Errorf("resident memory after the load: %w", err)
	}
	return nil
}

// residentWarm is how many streams warm each process before its resident
// memory is read at start; residentReadings how many readings are taken
// after the load.
const (
	residentWarm     = 5
	residentReadings = 3
)

// idleScenario holds streams open through the h2c-upstream proxy, then
// through the h2c-upstream agentgw. Another gateway (-target) has no part in
// it: its memory is read from its pprof endpoint, which a peer has not.
func idleScenario(ctx context.Context, st *stack, chat, gw []byte, n int, log io.Writer) (map[string]*idleResult, error) {
	out := map[string]*idleResult{}
	for _, p := range []struct {
		name, url string
		body      []byte
		proc      *harness.Process
	}{
		{pathProxy, "http://" + st.proxyH2C.Addr + "/chat/completions", chat, st.proxyH2C},
		{pathGateway, "http://" + st.gwH2C.Addr + "/agents/bench", gw, st.gwH2C},
	} {
		fmt.Fprintf(log, "idle %s: opening %d streams\n", p.name, n)
		t := newTarget(p.name, p.url, p.body, p.proc.Pid(), 16)
		r, err := runIdle(ctx, t, newDebugClient(p.proc.DebugAddr), n, log)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.name, err)
		}
		out[p.name] = r
	}
	return out, nil
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
