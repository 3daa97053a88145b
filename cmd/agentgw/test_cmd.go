package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path"
	"regexp"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentgw/agentgw/agent/prompt"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/agenttest"
	"github.com/agentgw/agentgw/configs"
	"github.com/agentgw/agentgw/conversation/binding"
	"github.com/agentgw/agentgw/knowledge/kb"
)

// testOptions are the flags of agentgw test beside the gateway's.
type testOptions struct {
	update, verbose bool
	match           string
}

// newTestCmd is agentgw test.
func newTestCmd(e cliEnv) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "test [DIR|FILE]...",
		Short: "Run the agents' tests, offline",
		Long: `Run the agents' tests (the *_test.yaml files next to their definitions)
offline, the model's answers recorded in them. The exit code is 1 when a
test fails.

Without arguments, it runs the tests of the configured agents (--agents, the
config file's agents, AGENTGW_AGENTS), or of the embedded examples.`,
		Example: `  agentgw test ./agents
  agentgw test ./agents --run 'hello/.*' -v
  agentgw test ./agents/hello_test.yaml --update`,
	}
	g := newGatewayFlags(cmd.Flags(), withAgents)
	var o testOptions
	cmd.Flags().BoolVar(&o.update, "update", false, "write the golden prompt files the tests name instead of comparing them")
	cmd.Flags().StringVar(&o.match, "run", "", "run only the tests whose name matches this regular `expression`")
	cmd.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "list the tests that pass too")
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		return exit(cmdTest(g, o, args, e.getenv, e.stdout, e.stderr))
	}
	return cmd
}

// cmdTest runs the agents' tests (*_test.yaml next to the definitions
// paths, or the configured ones) offline and exits 1 when one fails.
func cmdTest(g *gatewayFlags, o testOptions, paths []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, err := g.load(getenv)
	if err != nil {
		fmt.Fprintln(stderr, "agentgw:", err)
		return 2
	}
	tc := agentTestConfig(cfg, getenv)
	tc.Update, tc.Verbose, tc.Out = o.update, o.verbose, stdout
	if o.match != "" {
		if tc.Match, err = regexp.Compile(o.match); err != nil {
			fmt.Fprintln(stderr, "agentgw: --run:", err)
			return 2
		}
	}
	suites, err := testSuites(paths, cfg, &tc)
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
			Budget: prompt.Budget{DefaultContextLength: cfg.Budget.DefaultContextLength, ReplyReserve: cfg.Budget.ReplyReserve, Models: cfg.Budget.Models},
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
		return agenttest.Loaded{Agents: set.agents, Problems: set.problems, Kinds: ld.kinds,
			Close: func() { set.closeReplaced(agentSet{}, log) }}
	}
}
