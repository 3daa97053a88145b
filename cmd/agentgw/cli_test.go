package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestCLINormalizeArgs: the single-dash long flags of Go's flag package
// become pflag's double-dash ones, for the flags of the command named, and
// nothing else changes.
func TestCLINormalizeArgs(t *testing.T) {
	tests := []struct {
		args, want []string
	}{
		{[]string{"lint", "-config", "gw.yaml", "agents"}, []string{"lint", "--config", "gw.yaml", "agents"}},
		{[]string{"lint", "agents", "-config=gw.yaml"}, []string{"lint", "agents", "--config=gw.yaml"}},
		{[]string{"kb", "search", "-top", "2", "docs", "q"}, []string{"kb", "search", "--top", "2", "docs", "q"}},
		{[]string{"check", "-print", "-config", "f"}, []string{"check", "--print", "--config", "f"}},     // a bool takes no value
		{[]string{"lint", "--config", "-agents"}, []string{"lint", "--config", "-agents"}},               // a flag's value stays
		{[]string{"lint", "-config", "-agents"}, []string{"lint", "--config", "-agents"}},                // as after a rewrite
		{[]string{"lint", "--", "-config", "x"}, []string{"lint", "--", "-config", "x"}},                 // after --, arguments
		{[]string{"test", "-v", "-run", "x", "agents"}, []string{"test", "-v", "--run", "x", "agents"}},  // -v is a shorthand
		{[]string{"export", "-top", "hello"}, []string{"export", "-top", "hello"}},                       // not export's flag
		{[]string{"chat", "-", "-once", "-agent", "a"}, []string{"chat", "-", "--once", "--agent", "a"}}, // "-" is stdin
		{[]string{"lint", "-help"}, []string{"lint", "--help"}},                                          // cobra's help flag
		{[]string{"-version"}, []string{"--version"}},                                                    // and the version flag
		{[]string{"-config", "x", "lint"}, []string{"-config", "x", "lint"}},                             // not the root's flag
		{[]string{"healthcheck", "-addr=:1", "-timeout", "1s"}, []string{"healthcheck", "--addr=:1", "--timeout", "1s"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			root := newRootCmd(cliEnv{getenv: envOf(nil), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
			if got := normalizeArgs(root, tt.args); !slices.Equal(got, tt.want) {
				t.Errorf("normalizeArgs(%q) = %q, want %q", tt.args, got, tt.want)
			}
		})
	}
}

// TestCLIKBSearchFlagsAnywhere: kb search reads its flags before, between
// and after its arguments, in Go's single-dash spelling too; after "--"
// they are words of the query.
func TestCLIKBSearchFlagsAnywhere(t *testing.T) {
	env := kbTree(t, 20)
	if code, _, stderr := runCLI(t, env, "kb", "index"); code != 0 {
		t.Fatalf("kb index: exit %d\n%s", code, stderr)
	}
	code, want, stderr := runCLI(t, env, "kb", "search", "--top", "2", "docs", "retry backoff")
	if code != 0 || strings.Count(want, "\n") != 2 {
		t.Fatalf("kb search --top 2: exit %d, stdout:\n%s\nstderr:\n%s", code, want, stderr)
	}
	for _, args := range [][]string{
		{"docs", "retry backoff", "--top", "2"},
		{"docs", "--top=2", "retry", "backoff"},
		{"-top", "2", "docs", "retry backoff"},
		{"docs", "retry backoff", "-top=2"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, env, append([]string{"kb", "search"}, args...)...)
			if code != 0 || stdout != want {
				t.Errorf("exit %d, stdout:\n%s\nwant:\n%s\nstderr:\n%s", code, stdout, want, stderr)
			}
		})
	}
	// After "--", --top 2 is part of the query and the default top is 5.
	code, stdout, stderr := runCLI(t, env, "kb", "search", "docs", "--", "retry backoff", "--top", "2")
	if code != 0 || strings.Count(stdout, "\n") != 5 {
		t.Errorf("kb search docs -- ... --top 2: exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// agentsRequested is a fake gateway that records the paths chat asks for
// and answers 404.
func agentsRequested(t *testing.T) (url string, paths func() []string) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path)
		mu.Unlock()
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// TestCLIFlagsAfterArguments: lint, test, export and chat read the flags
// that follow their arguments, and Go's single-dash spellings.
func TestCLIFlagsAfterArguments(t *testing.T) {
	dir := t.TempDir()
	if code, stdout, stderr := runCLI(t, nil, "init", filepath.Join(dir, "p"), "--name", "demo"); code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, stdout, stderr)
	}
	agents := filepath.Join(dir, "p", "agents")
	missing := filepath.Join(dir, "missing.yaml")
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string // a substring
		wantStderr string // a substring
	}{
		{name: "lint --config after DIR", args: []string{"lint", agents, "--config", missing}, wantCode: 2, wantStderr: "agentgw: reading config"},
		{name: "lint -config=FILE after DIR", args: []string{"lint", agents, "-config=" + missing}, wantCode: 2, wantStderr: "agentgw: reading config"},
		{name: "test -v after DIR", args: []string{"test", agents, "-v"}, wantStdout: "--- PASS: passes the question to the model\n"},
		{name: "test --run after DIR", args: []string{"test", agents, "--run", "nomatch"}, wantStdout: "0 tests (agent demo)\n"},
		{name: "test -run after DIR", args: []string{"test", agents, "-run", "nomatch", "--verbose"}, wantStdout: "0 tests (agent demo)\n"},
		{name: "export --endpoint after NAME", args: []string{"export", "hello", "--endpoint", "https://flag.example"}, wantStdout: `"https://flag.example"`},
		{name: "export -endpoint after NAME", args: []string{"export", "hello", "-endpoint", "https://flag.example"}, wantStdout: `"https://flag.example"`},
		{name: "check -config -print", args: []string{"check", "-config", filepath.Join(dir, "p", "agentgw.yaml"), "-print"}, wantStdout: "agents:\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, tt.args...)
			if code != tt.wantCode || !strings.Contains(stdout, tt.wantStdout) || !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit %d, %q and %q", code, stdout, stderr, tt.wantCode, tt.wantStdout, tt.wantStderr)
			}
		})
	}
	// chat: the flags after the prompt choose the gateway and the agent.
	for _, args := range [][]string{
		{"hi", "there", "--agent", "revew", "--once"},
		{"hi", "-agent", "revew", "there", "-once"},
	} {
		t.Run("chat "+strings.Join(args, " "), func(t *testing.T) {
			url, paths := agentsRequested(t)
			code, _, stderr := runChat(t, "", append(args, "--url", url)...)
			if code != 1 || !slices.Equal(paths(), []string{"GET /agents/revew"}) {
				t.Errorf("exit %d, requests %q, want 1 and [GET /agents/revew]; stderr:\n%s", code, paths(), stderr)
			}
		})
	}
}

// TestCLIHelp: agentgw CMD -h shows that command's flags and no other
// command's, on stdout with exit code 0, as agentgw help CMD does.
func TestCLIHelp(t *testing.T) {
	tests := []struct {
		cmd      []string
		want     []string
		dontWant []string
	}{
		{[]string{"serve"}, []string{"--upstream URL", "--debug-addr address", "--body-read-timeout duration", "--agents DIR", "--data DIR"}, []string{"--top", "--print"}},
		{[]string{"lint"}, []string{"Usage:\n  agentgw lint [DIR|FILE]... [flags]\n", "--agents DIR", "--config FILE"}, []string{"--upstream", "--addr", "--data", "--debug-addr", "--top"}},
		{[]string{"test"}, []string{"-v, --verbose", "--run expression", "--update", "--agents DIR"}, []string{"--upstream", "--addr", "--data"}},
		{[]string{"export"}, []string{"Usage:\n  agentgw export NAME [flags]\n", "--endpoint string", "--addr address"}, []string{"--upstream", "--data", "--top"}},
		{[]string{"kb", "search"}, []string{"Usage:\n  agentgw kb search ID QUERY... [flags]\n", "--top int", "--json", "--show", "--data DIR", "--upstream URL"}, []string{"--agents", "--addr"}},
		{[]string{"kb", "index"}, []string{"--data DIR"}, []string{"--top", "--agents"}},
		{[]string{"kb"}, []string{"Available Commands:\n  index       Index the knowledge bases (all, or those named) now\n  search "}, []string{"--data"}},
		{[]string{"chat"}, []string{"--agent name", "--allow-tools", "--selection L1:C1-L2:C2"}, []string{"--config", "--upstream"}},
		{[]string{"check"}, []string{"--print", "--config FILE"}, []string{"--agents", "--upstream"}},
		{[]string{"init"}, []string{"--name NAME"}, []string{"--config FILE"}},
		{[]string{"schema"}, []string{"Usage:\n  agentgw schema agent|config|test [flags]\n"}, []string{"--config"}},
		{[]string{"schedules"}, []string{"--url URL", "--token token"}, []string{"--config"}},
		{[]string{"healthcheck"}, []string{"--addr address", "--timeout duration"}, []string{"--config"}},
	}
	for _, tt := range tests {
		name := strings.Join(tt.cmd, " ")
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, append(tt.cmd, "-h")...)
			if code != 0 || stderr != "" {
				t.Fatalf("%s -h: exit %d, stderr %q", name, code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("%s -h lacks %q:\n%s", name, w, stdout)
				}
			}
			for _, w := range tt.dontWant {
				if strings.Contains(stdout, w) {
					t.Errorf("%s -h shows %q:\n%s", name, w, stdout)
				}
			}
			for _, args := range [][]string{append(tt.cmd, "--help"), append(tt.cmd, "-help"), append([]string{"help"}, tt.cmd...)} {
				if code, again, _ := runCLI(t, nil, args...); code != 0 || again != stdout {
					t.Errorf("%q: exit %d, output differs from -h:\n%s", args, code, again)
				}
			}
		})
	}
}

// TestCLIUsageErrors: unknown commands and flags and wrong argument
// counts exit 2 with a message on stderr that names the command.
func TestCLIUsageErrors(t *testing.T) {
	tests := []struct {
		args       []string
		wantStderr string
	}{
		{[]string{"lint", "--upstream", "x"}, "agentgw lint: unknown flag: --upstream\nUsage: agentgw lint [DIR|FILE]... [flags]\nRun 'agentgw lint --help' for usage.\n"},
		{[]string{"serve", "-nope"}, "agentgw serve: unknown shorthand flag: 'n' in -nope\nUsage: agentgw serve [flags]\nRun 'agentgw serve --help' for usage.\n"},
		{[]string{"serve", "extra"}, "agentgw serve: unknown command \"extra\" for \"agentgw serve\"\nUsage: agentgw serve [flags]\nRun 'agentgw serve --help' for usage.\n"},
		{[]string{"chat", "-v"}, "agentgw chat: unknown shorthand flag: 'v' in -v\nUsage: agentgw chat [PROMPT...] [flags]\nRun 'agentgw chat --help' for usage.\n"},
		{[]string{"kb"}, "agentgw kb: missing sub-command: index or search\nUsage: agentgw kb [flags]\nRun 'agentgw kb --help' for usage.\n"},
		{[]string{"kb", "serch"}, "agentgw kb: unknown command \"serch\" for \"agentgw kb\"\nUsage: agentgw kb [flags]\nRun 'agentgw kb --help' for usage.\n"},
		{[]string{"kb", "search", "docs"}, "agentgw kb search: want ID QUERY, got 1 arguments\nUsage: agentgw kb search ID QUERY... [flags]\nRun 'agentgw kb search --help' for usage.\n"},
		{[]string{"kb", "search", "--top", "x", "docs", "q"}, "agentgw kb search: invalid argument \"x\" for \"--top\" flag: must be an integer\nUsage: agentgw kb search ID QUERY... [flags]\nRun 'agentgw kb search --help' for usage.\n"},
		{[]string{"version", "now"}, "agentgw version: unknown command \"now\" for \"agentgw version\"\nUsage: agentgw version [flags]\nRun 'agentgw version --help' for usage.\n"},
		{[]string{"help", "nope"}, "agentgw help: unknown help topic \"nope\"\nUsage: agentgw help [command] [flags]\nRun 'agentgw help --help' for usage.\n"},
		{[]string{"help", "kb", "serch"}, "agentgw help: unknown help topic \"kb serch\"\nUsage: agentgw help [command] [flags]\nRun 'agentgw help --help' for usage.\n"},
		{[]string{"completion"}, "agentgw completion: missing shell: bash, zsh, fish or powershell\nUsage: agentgw completion [flags]\nRun 'agentgw completion --help' for usage.\n"},
		{[]string{"--nope"}, "agentgw: unknown flag: --nope\nRun 'agentgw --help' for usage.\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, tt.args...)
			if code != 2 || stdout != "" || stderr != tt.wantStderr {
				t.Errorf("exit %d, stdout %q, stderr:\n%q\nwant exit 2 and\n%q", code, stdout, stderr, tt.wantStderr)
			}
		})
	}
}

// TestCompletionScripts: agentgw completion SHELL prints cobra's script for
// the shell, which asks agentgw __complete for the candidates; bash must
// accept the bash script's syntax.
func TestCompletionScripts(t *testing.T) {
	tests := []struct {
		shell string
		want  []string
	}{
		{"bash", []string{"# bash completion V2 for agentgw", "__start_agentgw()", "complete -o default -F __start_agentgw agentgw", " __complete "}},
		{"zsh", []string{"#compdef agentgw\ncompdef _agentgw agentgw\n", " __complete "}},
		{"fish", []string{"# fish completion for agentgw", "complete -c agentgw ", " __complete "}},
		{"powershell", []string{"# powershell completion for agentgw", "Register-ArgumentCompleter -CommandName 'agentgw'", " __complete "}},
	}
	for _, tt := range tests {
		t.Run(tt.shell, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, "completion", tt.shell)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("the %s script lacks %q", tt.shell, w)
				}
			}
			if tt.shell != "bash" {
				return
			}
			bash, err := exec.LookPath("bash")
			if err != nil {
				t.Skip("no bash to check the script's syntax")
			}
			script := filepath.Join(t.TempDir(), "agentgw.bash")
			if err := os.WriteFile(script, []byte(stdout), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(bash, "-n", script).CombinedOutput(); err != nil {
				t.Errorf("bash -n: %v\n%s", err, out)
			}
		})
	}
	code, _, stderr := runCLI(t, nil, "completion", "tcsh")
	if code != 2 || !strings.HasPrefix(stderr, "agentgw completion: unknown command \"tcsh\" for \"agentgw completion\"\n") {
		t.Errorf("completion tcsh: exit %d, stderr %q", code, stderr)
	}
}

// TestCompletionCandidates: what the scripts complete, as agentgw
// __complete answers them: the commands, kb's sub-commands, a command's
// own flags, the schema names, the agents export knows, the knowledge
// bases kb search knows, the agents of the gateway chat --url names.
func TestCompletionCandidates(t *testing.T) {
	env := kbTree(t, 1)
	gw := startGateway(t, testConfig(t, ""), nil)
	tests := []struct {
		args     []string
		want     []string // lines
		dontWant []string
	}{
		{[]string{""}, []string{"serve\tServe agents to IDE plugins", "kb\tIndex and search the knowledge bases", "chat\tTalk to a gateway as an IDE plugin does", "completion\tGenerate the autocompletion script for the specified shell", ":4"}, nil},
		{[]string{"kb", ""}, []string{"index\tIndex the knowledge bases (all, or those named) now", "search\tSearch a knowledge base as an agent's recall does", ":4"}, nil},
		{[]string{"help", "kb", ""}, []string{"index\tIndex the knowledge bases (all, or those named) now", "search\tSearch a knowledge base as an agent's recall does", ":4"}, nil},
		{[]string{"help", "s"}, []string{"serve\tServe agents to IDE plugins", "schema\tPrint the JSON Schema of agentgw's files", ":4"}, []string{"kb\t"}},
		{[]string{"schema", ""}, []string{"agent", "config", "test", ":4"}, nil},
		{[]string{"lint", "--"}, []string{"--agents\tagent definition `DIR` or file; repeatable (env AGENTGW_AGENTS, a path list); default: the embedded examples"}, []string{"--upstream", "--addr", "--top"}},
		{[]string{"kb", "search", "--"}, []string{"--top\thow many references"}, []string{"--agents"}},
		{[]string{"export", ""}, []string{"hello", "reviewer", ":4"}, nil},
		{[]string{"export", "hello", ""}, []string{":4"}, []string{"reviewer"}},
		{[]string{"kb", "search", ""}, []string{"docs", ":4"}, nil},
		{[]string{"kb", "index", "--config", env["AGENTGW_CONFIG"], ""}, []string{"docs", ":4"}, nil},
		{[]string{"chat", "--url", gw, "--agent", ""}, []string{"hello", "reviewer", ":4"}, nil},
		{[]string{"chat", "--url", gw + "/nowhere", "--agent", ""}, []string{":5"}, []string{"hello"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, env, append([]string{"__complete"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			for _, w := range tt.want {
				if !slices.Contains(lines, w) {
					t.Errorf("candidates lack %q:\n%s", w, stdout)
				}
			}
			for _, w := range tt.dontWant {
				if strings.Contains(stdout, w) {
					t.Errorf("candidates offer %q:\n%s", w, stdout)
				}
			}
		})
	}
}
