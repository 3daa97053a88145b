package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path"
	"regexp"
	"time"

	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/agenttest"
	"github.com/agentgw/agentgw/configs"
	"github.com/agentgw/agentgw/contexts/binding"
	"github.com/agentgw/agentgw/knowledge/kb"
)

// cmdTest runs the agents' tests (*_test.yaml next to the definitions)
// offline and exits 1 when one fails.
func cmdTest(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	g := newGatewayFlags("test", stderr)
	update := g.fs.Bool("update", false, "write the golden prompt files the tests name instead of comparing them")
	match := g.fs.String("run", "", "run only the tests whose name matches this regular `expression`")
	verbose := g.fs.Bool("v", false, "list the tests that pass too")
	g.fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: agentgw test [--update] [--run REGEXP] [-v] [DIR|FILE]...   (default: the configured agents, or the embedded examples)")
		g.fs.PrintDefaults()
	}
	if err := g.fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	cfg, err := g.load(getenv)
	if err != nil {
		fmt.Fprintln(stderr, "agentgw:", err)
		return 2
	}
	tc := agentTestConfig(cfg, getenv)
	tc.Update, tc.Verbose, tc.Out = *update, *verbose, stdout
	if *match != "" {
		if tc.Match, err = regexp.Compile(*match); err != nil {
			fmt.Fprintln(stderr, "agentgw: --run:", err)
			return 2
		}
	}
	suites, err := testSuites(g.fs.Args(), cfg, &tc)
	if err != nil {
		fmt.Fprintln(stderr, "agentgw:", err)
		return 2
	}
	sum, err := agenttest.Run(context.Background(), tc, suites)
	if err != nil {
		fmt.Fprintln(stderr, "agentgw:", err)
		return 2
	}
	if !sum.OK() {
		return 1
	}
	return 0
}

// agentTestConfig is the tests' configuration for the gateway configuration
// cfg: its runner settings, and agents loaded as serve loads them.
func agentTestConfig(cfg *Config, getenv func(string) string) agenttest.Config {
	return agenttest.Config{
		Load: testLoader(cfg, getenv),
		Runner: runner.RunnerConfig{
			DefaultModel: cfg.Upstream.DefaultModel, AllowRequestDefinitions: cfg.AllowRequestDefinitions, ReferencesPrompt: kb.PromptText,
			Stages: requestStages(services{}), Conversations: binding.New(nil),
			StateTTL: time.Duration(cfg.State.TTL), MaxToolRounds: cfg.Tools.MaxRounds, PauseTTL: time.Duration(cfg.Tools.PauseTTL),
			Budget: runner.BudgetConfig{DefaultContextLength: cfg.Budget.DefaultContextLength, ReplyReserve: cfg.Budget.ReplyReserve, Models: cfg.Budget.Models},
		},
	}
}

// testSuites are the suites of the paths given; with none, those of the
// configured agents, or the embedded examples' tests (read from the
// binary, so they cannot be updated).
func testSuites(paths []string, cfg *Config, tc *agenttest.Config) ([]agenttest.Suite, error) {
	if len(paths) == 0 {
		paths = cfg.Agents
	}
	if len(paths) > 0 {
		return agenttest.Discover(paths)
	}
	files, err := fs.Glob(configs.FS, path.Join(configs.AgentsDir, "*_test.yaml"))
	if err != nil {
		return nil, fmt.Errorf("listing the embedded tests: %w", err)
	}
	tc.ReadFile = func(name string) ([]byte, error) { return fs.ReadFile(configs.FS, name) }
	tc.WriteFile = func(name string, _ []byte) error {
		return fmt.Errorf("%s is inside the binary; run agentgw test configs/agents --update in the source tree", name)
	}
	return []agenttest.Suite{{Files: files}}, nil
}

// testLoader loads agents as serve does (newLoader, without the gateway's
// services: no repositories, hand-offs or knowledge bases); with stubs, its
// tool runtimes and the gateway's step kinds are the stubs'.
func testLoader(cfg *Config, getenv func(string) string) agenttest.Loader {
	log := slog.New(slog.DiscardHandler)
	return func(paths []string, stubs *agenttest.Stubs) agenttest.Loaded {
		c := *cfg
		if paths != nil {
			c.Agents = paths
		}
		ld := newLoader(&c, getenv, services{}, log)
		if stubs != nil {
			stubs.RegisterRuntimes(ld.tools)
			var kinds []stepkind.Kind
			for _, k := range gatewayKinds(services{}, ld.ask) {
				kinds = append(kinds, stubs.WrapKind(k))
			}
			ld.kinds = kindRegistry(kinds)
		}
		set := ld.read()
		return agenttest.Loaded{Agents: set.agents, Problems: set.problems, Kinds: ld.kinds, Bind: ld.asker.SetRunner,
			Close: func() { set.closeReplaced(agentSet{}, log) }}
	}
}
