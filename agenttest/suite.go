package agenttest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/runner"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/internal/suggest"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/store"
)

// Loaded is what a Loader made of some agent definitions.
type Loaded struct {
	Agents   []*program.Agent
	Problems agent.Diagnostics
	// Kinds are the step kinds the agents were compiled with, for the
	// runner (request-carried definitions).
	Kinds *stepkind.Registry
	// Close releases the agents' tools; nil when there is nothing to close.
	Close func()
}

// Loader loads the agents of paths as the gateway serves them (nil paths:
// the gateway's default agents). With stubs it registers their runtimes on
// its tool manager (Stubs.RegisterRuntimes) and wraps the step kinds that
// reach out of the process (Stubs.WrapKind); without, it loads exactly as
// the gateway does, for the problems.
type Loader func(paths []string, stubs *Stubs) Loaded

// Config configures a run of test files.
type Config struct {
	// Load loads agents; required.
	Load Loader
	// Runner is the runner's configuration (default model, budget, tool
	// rounds); the tests set its LLM, Signer, Store, Kinds, Parallel and
	// Logger.
	Runner runner.RunnerConfig
	// Update writes the golden files the tests name instead of comparing.
	Update bool
	// Match selects the tests to run by name; nil runs all.
	Match *regexp.Regexp
	// Verbose reports passing tests too.
	Verbose bool
	// Out receives the report; nil discards it.
	Out io.Writer
	// ReadFile reads test and golden files; nil means os.ReadFile.
	ReadFile func(name string) ([]byte, error)
	// WriteFile writes golden files; nil means os.WriteFile (and MkdirAll).
	WriteFile func(name string, data []byte) error
	// Timeout bounds one test; 0 means a minute.
	Timeout time.Duration
}

// Suite is test files and the agents they test: what Loader loads from
// Agents (nil: its default).
type Suite struct {
	Agents []string
	Files  []string
}

// Summary counts what a run did.
type Summary struct {
	Files, Tests, Failed, Updated int
}

// OK reports whether every test passed.
func (s Summary) OK() bool { return s.Failed == 0 }

// Discover finds the suites of paths: a directory is its agents and the
// test files under it (hidden entries skipped); a test file is tested
// against the agents of its directory; an agent definition file against
// the test files of its stem next to it (hello.yaml: hello_test.yaml).
func Discover(paths []string) ([]Suite, error) {
	var suites []Suite
	byDir := map[string]int{}
	add := func(dir, file string) {
		i, ok := byDir[dir]
		if !ok {
			i = len(suites)
			byDir[dir] = i
			suites = append(suites, Suite{Agents: []string{dir}})
		}
		if !slices.Contains(suites[i].Files, file) {
			suites[i].Files = append(suites[i].Files, file)
		}
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("agent tests: %w", err)
		}
		switch {
		case st.IsDir():
			files, err := findTests(p)
			if err != nil {
				return nil, err
			}
			if _, ok := byDir[p]; !ok {
				byDir[p] = len(suites)
				suites = append(suites, Suite{Agents: []string{p}})
			}
			for _, f := range files {
				add(p, f)
			}
		case IsTestFile(p):
			add(filepath.Dir(p), p)
		default:
			stem := strings.TrimSuffix(p, filepath.Ext(p))
			found := false
			for _, ext := range []string{".yaml", ".yml"} {
				if _, err := os.Stat(stem + "_test" + ext); err == nil {
					add(filepath.Dir(p), stem+"_test"+ext)
					found = true
				}
			}
			if !found {
				return nil, fmt.Errorf("agent tests: %s has no test file next to it (%s_test.yaml)", p, filepath.Base(stem))
			}
		}
	}
	return suites, nil
}

// findTests lists the test files under dir, sorted.
func findTests(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() && IsTestFile(p) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("agent tests: finding test files under %s: %w", dir, err)
	}
	slices.Sort(files)
	return files, nil
}

// Run runs the suites and reports to cfg.Out. The error is for a run that
// could not start; failed tests are counted in the summary.
func Run(ctx context.Context, cfg Config, suites []Suite) (Summary, error) {
	if cfg.Load == nil {
		return Summary{}, errors.New("agent tests: no loader")
	}
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	if cfg.ReadFile == nil {
		cfg.ReadFile = os.ReadFile
	}
	if cfg.WriteFile == nil {
		cfg.WriteFile = writeFile
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = time.Minute
	}
	var sum Summary
	for _, s := range suites {
		runSuite(ctx, &cfg, s, &sum)
	}
	switch {
	case sum.Tests == 0 && sum.Failed == 0:
		fmt.Fprintln(cfg.Out, "no tests found (test files are named *_test.yaml)")
	case sum.Failed > 0:
		fmt.Fprintf(cfg.Out, "FAIL: %d of %d tests failed\n", sum.Failed, sum.Tests)
	default:
		fmt.Fprintf(cfg.Out, "PASS: %d tests in %d files\n", sum.Tests, sum.Files)
	}
	if sum.Updated > 0 {
		fmt.Fprintf(cfg.Out, "%d golden files written\n", sum.Updated)
	}
	return sum, nil
}

func writeFile(name string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return fmt.Errorf("writing golden file: %w", err)
	}
	return os.WriteFile(name, data, 0o644)
}

// env is what the tests of a suite run against.
type env struct {
	cfg    *Config
	runner *runner.Runner
	replay *replay
	stubs  *Stubs
	agents []*program.Agent
}

// runSuite loads the suite's agents twice, as the gateway does (its errors
// fail every file) and with stubs, and runs the files' tests.
func runSuite(ctx context.Context, cfg *Config, s Suite, sum *Summary) {
	real := cfg.Load(s.Agents, nil)
	if real.Close != nil {
		real.Close()
	}
	if n := real.Problems.Errors(); n > 0 {
		for _, d := range real.Problems {
			if d.Severity == agent.SeverityError {
				fmt.Fprintf(cfg.Out, "%s\n", d)
			}
		}
		for _, f := range s.Files {
			fmt.Fprintf(cfg.Out, "FAIL %s: the agent definitions have %d errors\n", f, n)
		}
		sum.Files += len(s.Files)
		sum.Tests += len(s.Files)
		sum.Failed += len(s.Files)
		return
	}
	e, closeAgents := newEnv(cfg, s)
	if closeAgents != nil {
		defer closeAgents()
	}
	for _, f := range s.Files {
		e.runFile(ctx, f, sum)
	}
}

// newEnv loads the agents with stubs and builds the runner over them, its
// model the replay; the function returned closes the agents' tools.
func newEnv(cfg *Config, s Suite) (*env, func()) {
	stubs := &Stubs{}
	loaded := cfg.Load(s.Agents, stubs)
	reg := program.NewRegistry(nil)
	reg.SwapLoaded(loaded.Agents, loaded.Problems)
	rp := &replay{}
	client, err := llm.New(llm.Config{BaseURL: ModelURL, HTTPClient: &http.Client{Transport: rp}})
	if err != nil {
		panic(err) // the URL is a constant: a failure is a programming error
	}
	rc := cfg.Runner
	rc.LLM = client
	rc.Signer = actions.NewSigner([]byte("agenttest"), 0)
	rc.Store = store.NewMemory()
	rc.Kinds = loaded.Kinds
	// One step at a time: the model's answers are taken in order.
	rc.Parallel = 1
	rc.Logger = slog.New(slog.DiscardHandler)
	// The parts that run other agents' commands (ask steps) reach them
	// through the runner of the run they are in (package agent/dispatch).
	r := runner.NewRunner(reg, rc)
	return &env{cfg: cfg, runner: r, replay: rp, stubs: stubs, agents: loaded.Agents}, loaded.Close
}

// ModelURL is the upstream base URL the tests' model answers on; nothing
// listens there: the replay answers in the process.
const ModelURL = "http://model.agenttest.invalid/v1"

// runFile runs the tests of one file.
func (e *env) runFile(ctx context.Context, path string, sum *Summary) {
	sum.Files++
	data, err := e.cfg.ReadFile(path)
	if err != nil {
		fmt.Fprintf(e.cfg.Out, "FAIL %s: %v\n", path, err)
		sum.Tests++
		sum.Failed++
		return
	}
	f, diags := Parse(path, data)
	if diags.Errors() > 0 {
		for _, d := range diags {
			fmt.Fprintln(e.cfg.Out, d)
		}
		fmt.Fprintf(e.cfg.Out, "FAIL %s: the test file has %d errors\n", path, diags.Errors())
		sum.Tests++
		sum.Failed++
		return
	}
	name, err := e.target(f)
	if err != nil {
		fmt.Fprintf(e.cfg.Out, "%s:1: %v\nFAIL %s\n", path, err, path)
		sum.Tests++
		sum.Failed++
		return
	}
	ran, failed := 0, 0
	for _, t := range f.Tests {
		if e.cfg.Match != nil && !e.cfg.Match.MatchString(t.Name) {
			continue
		}
		ran++
		tctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
		fails, updated := e.runTest(tctx, f, name, t)
		cancel()
		sum.Updated += updated
		if len(fails) > 0 {
			slices.SortStableFunc(fails, func(a, b failure) int { return a.pos.Line - b.pos.Line })
			failed++
			fmt.Fprintf(e.cfg.Out, "--- FAIL: %s (%s)\n", t.Name, t.Pos.File+fmt.Sprintf(":%d", t.Pos.Line))
			for _, fl := range fails {
				fmt.Fprint(e.cfg.Out, fl.String())
			}
		} else if e.cfg.Verbose {
			fmt.Fprintf(e.cfg.Out, "--- PASS: %s\n", t.Name)
		}
	}
	sum.Tests += ran
	sum.Failed += failed
	if failed > 0 {
		fmt.Fprintf(e.cfg.Out, "FAIL %s: %d of %d tests failed (agent %s)\n", path, failed, ran, name)
	} else {
		fmt.Fprintf(e.cfg.Out, "ok   %s: %d tests (agent %s)\n", path, ran, name)
	}
}

// target is the agent a file tests: the one it names, else the one its
// stem's definition file defines, else the directory's only agent.
func (e *env) target(f *File) (string, error) {
	names := make([]string, 0, len(e.agents))
	for _, a := range e.agents {
		names = append(names, a.Name())
	}
	if f.Agent != "" {
		if !slices.Contains(names, f.Agent) {
			return "", fmt.Errorf("agent %q is not defined here%s", f.Agent, suggest.DidYouMean(f.Agent, names))
		}
		return f.Agent, nil
	}
	stem := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f.Path), filepath.Ext(f.Path)), "_test")
	var fromStem []string
	for _, a := range e.agents {
		file := filepath.Base(a.Def.Pos.File)
		if strings.TrimSuffix(file, filepath.Ext(file)) == stem && filepath.Dir(a.Def.Pos.File) == filepath.Dir(f.Path) {
			fromStem = append(fromStem, a.Name())
		}
	}
	switch {
	case len(fromStem) == 1:
		return fromStem[0], nil
	case len(names) == 1:
		return names[0], nil
	}
	return "", fmt.Errorf("the file does not say which agent it tests: add agent: NAME (one of %s)", strings.Join(names, ", "))
}
