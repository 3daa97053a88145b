package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The documentation's commands (README.md and every page of docs/) are run by
// TestDocCommands. A comment right before a ```sh block tells it about the
// block:
//
//	<!-- doctest: skip: REASON -->             the block is not run
//	<!-- doctest: skip "PREFIX": REASON -->    its commands that start with PREFIX are not run
//	<!-- doctest: exit N -->                   its commands exit N, not 0
//
// Anything else in such a comment, or one that is not right before a block
// (or skips no command), fails the test, so a stale marker cannot hide a
// command.

// docCommand is one command of a ```sh block, as written (continuation
// lines, open quotes and here-documents joined with their line breaks).
type docCommand struct {
	line int // of its first line in the page
	text string
}

// docSkip is a skip marker: commands starting with prefix ("" for all of
// the block) are not run, for reason.
type docSkip struct {
	prefix, reason string
	used           bool
}

// docBlock is one ```sh block of a page and what its markers say.
type docBlock struct {
	line int // of the opening fence
	cmds []docCommand
	skip []*docSkip
	exit int
}

var (
	docMarker  = regexp.MustCompile(`^<!--\s*doctest:\s*(.*?)\s*-->\s*$`)
	docSkipArg = regexp.MustCompile(`^skip(?:\s+"([^"]+)")?:\s*(\S.*)$`)
	docExitArg = regexp.MustCompile(`^exit\s+(\d+)$`)
	docHeredoc = regexp.MustCompile(`<<-?\s*'?"?([A-Za-z_]+)'?"?`)
)

// parseDocBlocks returns the ```sh blocks of a page with their commands
// and markers. Full-line comments and blank lines between commands are not
// commands.
func parseDocBlocks(page string) ([]docBlock, error) {
	var (
		blocks  []docBlock
		pending []string // the markers seen since the last other line
		pendAt  int
		cur     *docBlock
		cmd     docCommand
		heredoc string
	)
	finish := func() {
		cur.cmds = append(cur.cmds, cmd)
		cmd = docCommand{}
	}
	for i, line := range strings.Split(page, "\n") {
		n := i + 1
		if cur == nil {
			if m := docMarker.FindStringSubmatch(line); m != nil {
				if len(pending) == 0 {
					pendAt = n
				}
				pending = append(pending, m[1])
				continue
			}
			if strings.HasPrefix(line, "```sh") {
				cur = &docBlock{line: n}
				for _, p := range pending {
					if m := docSkipArg.FindStringSubmatch(p); m != nil {
						cur.skip = append(cur.skip, &docSkip{prefix: m[1], reason: m[2]})
					} else if m := docExitArg.FindStringSubmatch(p); m != nil {
						cur.exit, _ = strconv.Atoi(m[1])
					} else {
						return nil, fmt.Errorf("line %d: doctest marker %q: want skip: REASON, skip \"PREFIX\": REASON or exit N", pendAt, p)
					}
				}
				pending = nil
				continue
			}
			if len(pending) > 0 {
				return nil, fmt.Errorf("line %d: doctest marker %q is not right before a ```sh block", pendAt, pending[0])
			}
			continue
		}
		if cmd.text == "" && strings.HasPrefix(line, "```") {
			if len(cur.cmds) == 0 {
				return nil, fmt.Errorf("line %d: a ```sh block without a command", cur.line)
			}
			blocks = append(blocks, *cur)
			cur = nil
			continue
		}
		if cmd.text == "" {
			if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			cmd.line = n
			cmd.text = line
		} else {
			cmd.text += "\n" + line
		}
		if heredoc != "" {
			if strings.TrimSpace(line) == heredoc {
				heredoc = ""
				finish()
			}
			continue
		}
		if m := docHeredoc.FindStringSubmatch(line); m != nil {
			heredoc = m[1]
			continue
		}
		if strings.HasSuffix(strings.TrimRight(shellComment.ReplaceAllString(line, ""), " "), `\`) {
			continue
		}
		quotes := 0
		for l := range strings.Lines(cmd.text) {
			quotes += strings.Count(shellComment.ReplaceAllString(l, ""), "'")
		}
		if quotes%2 == 1 {
			continue
		}
		finish()
	}
	switch {
	case cur != nil:
		return nil, fmt.Errorf("line %d: a ```sh block that is not closed", cur.line)
	case len(pending) > 0:
		return nil, fmt.Errorf("line %d: doctest marker %q is not right before a ```sh block", pendAt, pending[0])
	}
	return blocks, nil
}

// TestParseDocBlocks checks the extraction the doc test relies on.
func TestParseDocBlocks(t *testing.T) {
	page := "text\n" +
		"```sh\n" +
		"# a comment\n" +
		"agentgw lint x    # it's a comment\n" +
		"\n" +
		"curl -s a \\\n  -d '{\n  \"k\": 1}'\n" +
		"cat > f <<'EOF'\nline\n```\nEOF\n" +
		"```\n" +
		"<!-- doctest: skip \"go test\": the whole suite -->\n" +
		"<!-- doctest: exit 1 -->\n" +
		"```sh\ngo test ./...\nagentgw lint bad\n```\n" +
		"```sh\nnot sh\n```\n"
	blocks, err := parseDocBlocks(page)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%+v", []any{len(blocks), blocks[0].cmds, blocks[1].cmds, *blocks[1].skip[0], blocks[1].exit, blocks[2].cmds})
	want := `[3 [{line:4 text:agentgw lint x    # it's a comment} {line:6 text:curl -s a \` + "\n" +
		`  -d '{` + "\n" + `  "k": 1}'} {line:9 text:cat > f <<'EOF'` + "\nline\n```\nEOF}] " +
		`[{line:17 text:go test ./...} {line:18 text:agentgw lint bad}] {prefix:go test reason:the whole suite used:false} 1 [{line:21 text:not sh}]]`
	if got != want {
		t.Errorf("parseDocBlocks =\n%s\nwant\n%s", got, want)
	}
	for _, bad := range []string{
		"<!-- doctest: skip -->\n```sh\nx\n```\n",
		"<!-- doctest: skip: why -->\ntext\n```sh\nx\n```\n",
		"<!-- doctest: skip: why -->\n",
		"```sh\n```\n",
		"```sh\nx\n",
	} {
		if _, err := parseDocBlocks(bad); err == nil {
			t.Errorf("parseDocBlocks(%q) = nil error, want one", bad)
		}
	}
}

// docMinRun is how many commands of a page the doc test must have run, at
// least: a page whose commands all disappeared from the extraction fails.
var docMinRun = map[string]int{
	"README.md":             13,
	"docs/agents.md":        3,
	"docs/conversations.md": 3,
	"docs/knowledge.md":     4,
	"docs/multi-agent.md":   4,
	"docs/openai.md":        2,
	"docs/operating.md":     2,
	"docs/playground.md":    1,
	"docs/schedules.md":     3,
	"docs/tools.md":         1,
}

// agentgwBin is a directory holding "agentgw", a link to this test binary,
// which TestMain runs as the gateway's command line when called by that
// name; it is made once per test binary.
var agentgwBin = sync.OnceValues(func() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "agentgw-doctest-bin")
	if err != nil {
		return "", err
	}
	return dir, os.Symlink(exe, filepath.Join(dir, "agentgw"))
})

// runAsAgentgw runs the command line when this test binary was started as
// "agentgw" (by the doc test's commands) and reports whether it did.
func runAsAgentgw() (int, bool) {
	if filepath.Base(os.Args[0]) != "agentgw" {
		return 0, false
	}
	return run(os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr), true
}

// TestDocCommands runs every command of the ```sh blocks of README.md and
// docs/**/*.md, as a reader would from the root of a clone: in a directory
// of the page's own that links every top-level entry of the repository
// (so what a command writes stays there), through bash, with `go run
// ./cmd/agentgw` as `agentgw` (this test binary), against a gateway the test
// runs in-process. Each page starts with one (the embedded config and
// examples, the built-in model); an `agentgw serve ...` command replaces it
// by one started in-process with those flags, for the commands after it.
// localhost:18080 in a command is that gateway's address, and AGENTGW_URL
// names it for agentgw chat. A command must exit 0 (or the block's exit N);
// curl gets --fail-with-body, and its answer must hold no copilot_error.
func TestDocCommands(t *testing.T) {
	bin, err := agentgwBin()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range docPages(t) {
		t.Run(page, func(t *testing.T) {
			t.Parallel()
			text := readDoc(t, page)
			blocks, err := parseDocBlocks(text)
			if err != nil {
				t.Fatalf("%s:%v", page, err)
			}
			if n := strings.Count("\n"+text, "\n```sh\n"); n != len(blocks) {
				t.Fatalf("%s: %d ```sh blocks, but the extraction found %d", page, n, len(blocks))
			}
			dir := t.TempDir()
			for _, e := range entries {
				if e.Name() == ".git" {
					continue
				}
				if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
					t.Fatal(err)
				}
			}
			d := &docRun{t: t, page: page, dir: dir, bin: bin}
			ran := 0
			for _, b := range blocks {
				for _, c := range b.cmds {
					if s := b.skipped(c.text); s != nil {
						t.Logf("%s:%d: skipped (%s): %s", page, c.line, s.reason, c.text)
						continue
					}
					d.run(c, b.exit)
					ran++
				}
				for _, s := range b.skip {
					if !s.used {
						t.Errorf("%s:%d: the marker skip %q skips no command of the block", page, b.line, s.prefix)
					}
				}
			}
			if ran < docMinRun[page] {
				t.Errorf("%s: ran %d commands, want at least %d: is the extraction broken?", page, ran, docMinRun[page])
			}
			if len(blocks) > 0 && ran == 0 && docMinRun[page] == 0 {
				t.Logf("%s: every command is skipped", page)
			}
		})
	}
}

// skipped returns the marker that skips cmd, if any.
func (b *docBlock) skipped(cmd string) *docSkip {
	for _, s := range b.skip {
		if strings.HasPrefix(cmd, s.prefix) {
			s.used = true
			return s
		}
	}
	return nil
}

// docRun runs one page's commands in order.
type docRun struct {
	t         *testing.T
	page, dir string
	bin       string
	gateway   string // base URL, "" before the first command that needs one
}

var (
	goRunAgentgw = regexp.MustCompile(`\bgo run \./cmd/agentgw\b`)
	docAddr      = regexp.MustCompile(`\b(localhost|127\.0\.0\.1):18080\b`)
	curlCommand  = regexp.MustCompile(`(?m)(^|[;&|(]\s*)curl\s`)
	serveCommand = regexp.MustCompile(`^agentgw serve(\s|$)`)
)

// run runs one command and checks its exit code and output.
func (d *docRun) run(c docCommand, wantExit int) {
	t := d.t
	where := fmt.Sprintf("%s:%d", d.page, c.line)
	text := goRunAgentgw.ReplaceAllString(c.text, "agentgw")
	if single := strings.TrimSpace(shellComment.ReplaceAllString(text, "")); serveCommand.MatchString(single) {
		d.serve(where, strings.Fields(single)[2:])
		return
	}
	if strings.Contains(text, "agentgw serve") {
		t.Errorf("%s: a serve command the doc test cannot start (only `agentgw serve FLAGS...` alone): mark its block skip:\n%s", where, c.text)
		return
	}
	if d.gateway == "" && (docAddr.MatchString(text) || strings.Contains(text, "agentgw chat") || strings.Contains(text, "agentgw schedules")) {
		d.serve(where+" (the gateway as `agentgw serve` starts with no flags)", nil)
	}
	host := strings.TrimPrefix(d.gateway, "http://")
	text = docAddr.ReplaceAllString(text, host)
	isCurl := curlCommand.MatchString(text)
	text = curlCommand.ReplaceAllString(text, "${1}curl --fail-with-body ")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", text)
	cmd.Dir = d.dir
	cmd.Env = d.env()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Errorf("%s: %v\n%s", where, err, c.text)
		return
	}
	switch {
	case ctx.Err() != nil:
		t.Errorf("%s: did not end within 2m:\n%s\nstdout:\n%s\nstderr:\n%s", where, c.text, stdout.String(), stderr.String())
	case code != wantExit:
		t.Errorf("%s: exit %d, want %d:\n%s\nstdout:\n%s\nstderr:\n%s", where, code, wantExit, c.text, stdout.String(), stderr.String())
	case isCurl && strings.Contains(stdout.String(), "event: copilot_error"):
		t.Errorf("%s: the answer holds an error frame:\n%s\nstdout:\n%s", where, c.text, stdout.String())
	default:
		t.Logf("%s: ran: %s", where, c.text)
	}
}

// serve starts a gateway in-process with the flags of an `agentgw serve`
// command of the page, for the commands after it: on a loopback port of
// its own, with a data directory of the test's, the built-in model without
// its pace. Paths in the flags are the page directory's.
func (d *docRun) serve(where string, args []string) {
	t := d.t
	for i, a := range args {
		for _, f := range []string{"--config", "--agents", "--data"} {
			if v, ok := strings.CutPrefix(a, f+"="); ok && !filepath.IsAbs(v) {
				args[i] = f + "=" + filepath.Join(d.dir, v)
			}
			if a == f && i+1 < len(args) && !filepath.IsAbs(args[i+1]) {
				args[i+1] = filepath.Join(d.dir, args[i+1])
			}
		}
	}
	var stderr bytes.Buffer
	g := newGatewayFlags("serve", &stderr)
	if err := g.fs.Parse(args); err != nil {
		t.Errorf("%s: agentgw serve %s: %v\n%s", where, strings.Join(args, " "), err, stderr.String())
		return
	}
	cfg, err := g.load(envOf(nil))
	if err != nil {
		t.Errorf("%s: agentgw serve %s: %v", where, strings.Join(args, " "), err)
		return
	}
	cfg.Addr = "127.0.0.1:0"
	cfg.Data = t.TempDir()
	cfg.Upstream.BuiltinPace = 0
	cfg.Server.ShutdownGrace = Duration(5 * time.Second)
	d.gateway = startGateway(t, cfg, nil)
	t.Logf("%s: started in-process: agentgw serve %s", where, strings.Join(args, " "))
}

// env is the environment of a command: this process's without its
// AGENTGW_* variables, agentgw first on PATH, AGENTGW_URL the gateway's,
// and the data and state directories the page's own.
func (d *docRun) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "AGENTGW_") || strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "XDG_STATE_HOME=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"PATH="+d.bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"AGENTGW_URL="+d.gateway,
		"AGENTGW_DATA="+filepath.Join(d.dir, ".agentgw-data"),
		"XDG_STATE_HOME="+filepath.Join(d.dir, ".state"),
	)
}
