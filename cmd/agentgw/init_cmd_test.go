package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestInitWritesAgentThatPasses runs agentgw init into an empty directory,
// then agentgw test and agentgw lint on what it wrote: both pass at once,
// the config serves the folder, and every schema a file names is there.
// It runs in the directory above, so that the paths printed are stable.
func TestInitWritesAgentThatPasses(t *testing.T) {
	t.Chdir(t.TempDir())
	dir := "proj"
	code, stdout, stderr := runCLI(t, nil, "init", "--name", "demo", dir)
	if code != 0 || stderr != "" {
		t.Fatalf("agentgw init: exit %d\n%s%s", code, stdout, stderr)
	}
	want := `wrote proj/agentgw.yaml
wrote proj/agents/demo.yaml
wrote proj/agents/demo_test.yaml
wrote proj/schema/agent.schema.json
wrote proj/schema/agent-test.schema.json
wrote proj/schema/config.schema.json

Next:
  agentgw test proj/agents                  # run the agent's tests, offline
  agentgw lint proj/agents                  # check the definitions
  agentgw serve --config proj/agentgw.yaml  # serve it (no upstream: the built-in echo model answers)
  agentgw chat --agent demo hello           # talk to it, from another terminal
`
	if stdout != want {
		t.Errorf("init stdout:\n%s\nwant:\n%s", stdout, want)
	}

	agents := filepath.Join(dir, "agents")
	code, stdout, stderr = runCLI(t, nil, "test", "-v", agents)
	want = `--- PASS: greets the user by nickname and offers to ask the model
--- PASS: passes the question to the model
--- PASS: the button asks the model
ok   proj/agents/demo_test.yaml: 3 tests (agent demo)
PASS: 3 tests in 1 files
`
	if code != 0 || stderr != "" || stdout != want {
		t.Errorf("agentgw test: exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, stderr, stdout, want)
	}

	code, stdout, stderr = runCLI(t, nil, "lint", agents)
	if code != 0 || stdout != "" || stderr != "1 agents loaded, 0 errors, 0 warnings\n" {
		t.Errorf("agentgw lint: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}

	// The config serves the folder, relative to the file.
	g := newGatewayFlags(pflag.NewFlagSet("serve", pflag.ContinueOnError), allGatewayFlags)
	if err := g.fs.Parse([]string{"--config", filepath.Join(dir, "agentgw.yaml")}); err != nil {
		t.Fatal(err)
	}
	cfg, err := g.load(envOf(nil))
	if err != nil {
		t.Fatalf("loading the config init wrote: %v", err)
	}
	if !slices.Equal(cfg.Agents, []string{agents}) || !cfg.Upstream.builtinDefault {
		t.Errorf("config: agents %q, built-in model %v; want [%s], true", cfg.Agents, cfg.Upstream.builtinDefault, agents)
	}

	// Each YAML file names a schema that init wrote, the one agentgw schema prints.
	header := regexp.MustCompile(`^# yaml-language-server: \$schema=(\S+)\n`)
	for file, kind := range map[string]string{
		"agentgw.yaml": "config", "agents/demo.yaml": "agent", "agents/demo_test.yaml": "test",
	} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		m := header.FindSubmatch(data)
		if m == nil {
			t.Errorf("%s: no yaml-language-server header:\n%s", file, data)
			continue
		}
		got, err := os.ReadFile(filepath.Join(dir, filepath.Dir(file), string(m[1])))
		if err != nil {
			t.Errorf("%s names a schema init did not write: %v", file, err)
			continue
		}
		_, printed, _ := runCLI(t, nil, "schema", kind)
		if string(got) != printed {
			t.Errorf("%s: the schema %s differs from agentgw schema %s", file, m[1], kind)
		}
	}
}

// TestInitDefaults writes the default agent, my-agent, into the current
// directory.
func TestInitDefaults(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	code, stdout, stderr := runCLI(t, nil, "init")
	if code != 0 || stderr != "" || !strings.Contains(stdout, "wrote agents/my-agent.yaml\n") {
		t.Fatalf("agentgw init: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr = runCLI(t, nil, "test", "agents"); code != 0 || !strings.Contains(stdout, "PASS: 3 tests in 1 files\n") {
		t.Errorf("agentgw test: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestInitRefusesToOverwrite checks that init writes nothing when one of
// its files exists, says which, and exits 1.
func TestInitRefusesToOverwrite(t *testing.T) {
	for _, existing := range []string{"agents/demo.yaml", "agents/demo_test.yaml", "agentgw.yaml", "schema/config.schema.json"} {
		t.Run(existing, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, existing)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte("mine\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runCLI(t, nil, "init", "--name", "demo", dir)
			want := "agentgw init: not overwriting " + path + ": nothing written (choose another DIR or --name, or remove them)\n"
			if code != 1 || stdout != "" || stderr != want {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 1 and:\n%s", code, stdout, stderr, want)
			}
			if data, _ := os.ReadFile(path); string(data) != "mine\n" {
				t.Errorf("%s was changed: %q", existing, data)
			}
			var files []string
			_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					files = append(files, p)
				}
				return err
			})
			if !slices.Equal(files, []string{path}) {
				t.Errorf("files after a refusal: %q, want only %s", files, path)
			}
		})
	}
}

// TestInitAgentNames checks the names init accepts and refuses; a refused
// name writes nothing.
func TestInitAgentNames(t *testing.T) {
	long := strings.Repeat("a", maxAgentNameLen)
	tests := []struct {
		name string
		err  string // stderr; empty: accepted
	}{
		{name: "a"},
		{name: "my-agent2"},
		{name: "code-review-bot"},
		{name: long},
		{name: "", err: "the agent's name is empty"},
		{name: long + "a", err: `agent name "` + long + `a" is longer than 63 characters`},
		{name: "Demo", err: `invalid agent name "Demo"`},
		{name: "my_agent", err: `invalid agent name "my_agent"`},
		{name: "my agent", err: `invalid agent name "my agent"`},
		{name: "-x", err: `invalid agent name "-x"`},
		{name: "x-", err: `invalid agent name "x-"`},
		{name: "a--b", err: `invalid agent name "a--b"`},
		{name: "1abc", err: `invalid agent name "1abc"`},
		{name: "../x", err: `invalid agent name "../x"`},
		{name: "a/b", err: `invalid agent name "a/b"`},
		{name: "café", err: `invalid agent name "café"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "proj")
			code, stdout, stderr := runCLI(t, nil, "init", "--name", tc.name, dir)
			if tc.err == "" {
				if code != 0 || stderr != "" {
					t.Errorf("exit %d\n%s%s", code, stdout, stderr)
				}
				return
			}
			if code != 1 || stdout != "" || !strings.HasPrefix(stderr, "agentgw init: "+tc.err) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, stdout, stderr, tc.err)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("a refused name wrote %s (%v)", dir, err)
			}
		})
	}
}

// TestInitUsage checks the usage errors and the help.
func TestInitUsage(t *testing.T) {
	tests := []struct {
		args           []string
		code           int
		stdout, stderr string // substrings
	}{
		{[]string{"init", "a", "b"}, 2, "", "agentgw init: one DIR at most, got 2 arguments\nUsage: agentgw init [DIR] [flags]\n"},
		{[]string{"init", "--nmae", "x"}, 2, "", "agentgw init: unknown flag: --nmae\n"},
		{[]string{"init", "-h"}, 0, "Usage:\n  agentgw init [DIR] [flags]\n", ""},
		{[]string{"init", "-h"}, 0, "      --name NAME           the agent's NAME: lower-case letters, digits and hyphens (default \"my-agent\")\n", ""},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, tc.args...)
			if code != tc.code || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit %d, %q and %q", code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
			}
		})
	}
	if _, stdout, _ := runCLI(t, nil, "help"); !strings.Contains(stdout, "\n  init        Write a starting agent and its tests\n") {
		t.Errorf("the usage does not list init:\n%s", stdout)
	}
}

// TestInitREADME runs the init, test and lint commands of the README's
// "Start your own agent" and checks the output its comments show.
func TestInitREADME(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n### Start your own agent\n")
	if !ok {
		t.Fatal(`README.md has no "### Start your own agent" section`)
	}
	_, block, _ := strings.Cut(section, "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	t.Chdir(t.TempDir())
	ran := 0
	for line := range strings.Lines(block) {
		cmdline, comment, _ := strings.Cut(strings.TrimSpace(line), "#")
		args := strings.Fields(cmdline)
		if len(args) < 3 || args[0] != "go" || args[2] != "./cmd/agentgw" {
			t.Fatalf("README: not a go run ./cmd/agentgw command: %q", line)
		}
		args = args[3:]
		if args[0] == "serve" || args[0] == "chat" {
			continue // they run a server; TestInitWritesAgentThatPasses loads its config
		}
		code, stdout, stderr := runCLI(t, nil, args...)
		if code != 0 || !strings.Contains(stdout+stderr, strings.TrimSpace(comment)) {
			t.Errorf("README: %s: exit %d, want output with %q:\n%s%s", cmdline, code, strings.TrimSpace(comment), stdout, stderr)
		}
		ran++
	}
	if ran != 3 {
		t.Errorf("README: ran %d commands, want init, test and lint", ran)
	}
}

// TestInitServes serves what init wrote with the config it wrote, on
// loopback, and checks both commands' answers: the reply template, and the
// built-in model's echo of the prompt the ask command sends.
func TestInitServes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "proj")
	if code, stdout, stderr := runCLI(t, nil, "init", "--name", "demo", dir); code != 0 {
		t.Fatalf("agentgw init: exit %d\n%s%s", code, stdout, stderr)
	}
	g := newGatewayFlags(pflag.NewFlagSet("serve", pflag.ContinueOnError), allGatewayFlags)
	if err := g.fs.Parse([]string{"--config", filepath.Join(dir, "agentgw.yaml")}); err != nil {
		t.Fatal(err)
	}
	cfg, err := g.load(envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	test := testConfig(t, "")
	cfg.Addr, cfg.Data, cfg.Upstream.BuiltinPace, cfg.Server.ShutdownGrace = test.Addr, test.Data, 0, test.Server.ShutdownGrace
	base := startGateway(t, cfg, nil)

	for _, tc := range []struct{ name, body, want string }{
		{"default", `{"contextVariables":[{"name":"userInfo","value":{"nickname":"Ann"}}]}`, "Hello, Ann! I am demo."},
		{"ask", `{"command":"ask","contextVariables":[{"name":"userInputPrompt","value":"what is go"}]}`,
			"echo model (gpt-4o-mini) got 2 messages:\n- system: You are demo, a helpful assistant. Answer briefly.\n- user: what is go\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, events := postAgent(t, base+"/agents/demo", tc.body)
			if got := streamText(t, events); resp.StatusCode != 200 || got != tc.want {
				t.Errorf("status %d, text %q, want %q", resp.StatusCode, got, tc.want)
			}
		})
	}
}

// TestInitREADMEAgent checks that the agent the README shows after its
// "Start your own agent" commands is, byte for byte, the one that
// `agentgw init --name demo` writes.
func TestInitREADMEAgent(t *testing.T) {
	_, section, ok := strings.Cut(readREADME(t), "\n### Start your own agent\n")
	if !ok {
		t.Fatal(`README.md has no "### Start your own agent" section`)
	}
	_, shown, ok := strings.Cut(section, "```yaml\n")
	if !ok {
		t.Fatal(`README.md's "Start your own agent" shows no YAML`)
	}
	shown, _, _ = strings.Cut(shown, "```")
	dir := t.TempDir()
	if code, stdout, stderr := runCLI(t, nil, "init", "--name", "demo", dir); code != 0 {
		t.Fatalf("agentgw init: exit %d\n%s%s", code, stdout, stderr)
	}
	written, err := os.ReadFile(filepath.Join(dir, "agents", "demo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if shown != string(written) {
		t.Errorf("README.md shows demo.yaml as\n%s\nagentgw init --name demo writes\n%s", shown, written)
	}
}
