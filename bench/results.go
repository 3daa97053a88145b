package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// results is everything a run measured; -json writes it as is.
type results struct {
	Machine    machine                   `json:"machine"`
	Params     params                    `json:"params"`
	Latency    map[string]*latencyResult `json:"latency,omitempty"`
	Saturation map[string]*satResult     `json:"saturation,omitempty"`
	Idle       map[string]*idleResult    `json:"idle,omitempty"`
	// Resident is the resident memory at start and after the load.
	Resident  *residentResult `json:"resident,omitempty"`
	Handoff   *handoffResult  `json:"handoff,omitempty"`
	HandoffPG *handoffResult  `json:"handoff_postgres,omitempty"`
	// Recall is the recall path's corpus and index build (-recall-chunks)
	// on SQLite, RecallPG on PostgreSQL (-pg).
	Recall   *recallInfo `json:"recall,omitempty"`
	RecallPG *recallInfo `json:"recall_postgres,omitempty"`
}

// recallInfo describes the recall path's knowledge base.
type recallInfo struct {
	Chunks int           `json:"chunks"`
	Lines  int           `json:"lines"`
	Index  time.Duration `json:"index_ns"`
	// IndexCPU is agentgw kb index's user+sys CPU time (not PostgreSQL's).
	IndexCPU time.Duration `json:"index_cpu_ns"`
}

// machine describes where the run happened.
type machine struct {
	CPU        string `json:"cpu"`
	Cores      int    `json:"cores"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	Go         string `json:"go"`
	Kernel     string `json:"kernel"`
	Date       string `json:"date"`
	Commit     string `json:"commit"`
	FDLimit    uint64 `json:"fd_limit"`
}

// params are the run's settings.
type params struct {
	LatencyStreams int           `json:"latency_streams"`
	Concurrency    int           `json:"concurrency"`
	SatRounds      int           `json:"saturation_rounds"`
	SatDuration    time.Duration `json:"saturation_round_ns"`
	IdleStreams    int           `json:"idle_streams"`
	ChatBody       int           `json:"chat_body_bytes"`
	GatewayBody    int           `json:"gateway_body_bytes"`
	// Peer is the other gateway's URL (-target), if any.
	Peer string `json:"peer,omitempty"`
}

// describeMachine gathers the header facts; unknown ones stay "?".
func describeMachine(ctx context.Context, root string) machine {
	m := machine{CPU: "?", Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), Go: runtime.Version(),
		Kernel: "?", Date: time.Now().UTC().Format("2006-01-02 15:04 MST"), Commit: "?"}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
		_ = f.Close()
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(b))
	}
	git := func(args ...string) string {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = root
		out, _ := cmd.Output()
		return strings.TrimSpace(string(out))
	}
	if c := git("rev-parse", "--short", "HEAD"); c != "" {
		m.Commit = c
		if git("status", "--porcelain", "--untracked-files=no") != "" {
			m.Commit += " + uncommitted changes"
		}
	}
	return m
}

// writeHeader prints the machine and the run's settings above the table.
func writeHeader(w io.Writer, r *results) {
	m, p := r.Machine, r.Params
	fmt.Fprintf(w, "## agentgw overhead (go run ./bench)\n\n")
	fmt.Fprintf(w, "- machine: %s, %d cores (GOMAXPROCS %d), %s; %s; %s\n", m.CPU, m.Cores, m.GOMAXPROCS, m.Kernel, m.Go, m.Date)
	fmt.Fprintf(w, "- agentgw commit %s; all processes on loopback on this machine; agentgw runs with its defaults (access log at info, metrics on, SQLite data directory) unless noted\n", m.Commit)
	fmt.Fprintf(w, "- latency: %d sequential streams per path (20 chunks × 100 B, 1 ms apart); saturation: %d workers, %d rounds × %s per path (22 events, no gap); idle: %d streams\n",
		p.LatencyStreams, p.Concurrency, p.SatRounds, p.SatDuration, p.IdleStreams)
	peer := ""
	if p.Peer != "" {
		peer = ", target " + p.Peer + " the proxy's"
	}
	fmt.Fprintf(w, "- request bodies: direct and proxy %d B (chat completion), agentgw %d B (context variables)%s\n\n", p.ChatBody, p.GatewayBody, peer)
}

// writeJSON writes the results to path.
func writeJSON(path string, r *results) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding results: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("writing results: %w", err)
	}
	return nil
}
