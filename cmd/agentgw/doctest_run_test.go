//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentgw/agentgw/internal/syncbuf"
)

// docMinRun is how many commands of a page the doc test must have run, at
// least: a page whose commands all disappeared from the extraction fails.
// Any page with ```sh blocks must run one, listed here or not.
var docMinRun = map[string]int{
	"README.md":             13,
	"docs/api.md":           19, // written on another branch: counts as of its merge into main
	"docs/protocol.md":      1,
	"docs/agents.md":        3,
	"docs/conversations.md": 3,
	"docs/knowledge.md":     4,
	"docs/multi-agent.md":   4,
	"docs/openai.md":        2,
	"docs/operating.md":     2,
	"docs/playground.md":    1,
	"docs/schedules.md":     3,
	"docs/tools.md":         1,
	"docs/keys.md":          9,
}

// TestDocCommands runs every command of the ```sh blocks of README.md and
// docs/**/*.md, as a reader would from the root of a clone: in a directory
// of the page's own that links every top-level entry of the repository
// (so what a command writes stays there), through bash, with `go run
// ./cmd/agentgw` as `agentgw` (this test binary), against a gateway the test
// runs. A page's `agentgw serve ...` command starts one as written (on a
// loopback port of its own), for the commands after it; commands before any
// serve get the gateway the README's first command starts (`agentgw serve`:
// the embedded config and examples, the built-in model).
// localhost:18080 in a command is that gateway's address, and AGENTGW_URL
// names it for agentgw chat. A command must exit 0 (or the block's exit N);
// curl gets --fail-with-body, and its answer must hold no copilot_error.
func TestDocCommands(t *testing.T) {
	// bin holds "agentgw", a link to this test binary, which TestMain runs
	// as the gateway's command line when called by that name.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(bin, "agentgw")); err != nil {
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
			if len(blocks) > 0 && ran == 0 {
				t.Errorf("%s: every command of its ```sh blocks is skipped: show one a reader can run here", page)
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
	serveCommand = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*=\S*\s+)*agentgw serve(\s[^;&|()<>]*)?$`)
	playgroundAt = regexp.MustCompile(`playground at (http://[^\s"/]+)/`)
)

// run runs one command and checks its exit code and output.
func (d *docRun) run(c docCommand, wantExit int) {
	t := d.t
	where := fmt.Sprintf("%s:%d", d.page, c.line)
	text := goRunAgentgw.ReplaceAllString(c.text, "agentgw")
	if single := strings.TrimSpace(shellComment.ReplaceAllString(text, "")); serveCommand.MatchString(single) {
		d.serve(where, single)
		return
	}
	if strings.Contains(text, "agentgw serve") {
		t.Errorf("%s: a serve command the doc test cannot start (only `[VAR=value...] agentgw serve FLAGS...` alone): mark its block skip:\n%s", where, c.text)
		return
	}
	if d.gateway == "" && (docAddr.MatchString(text) || strings.Contains(text, "agentgw chat") || strings.Contains(text, "agentgw schedules")) {
		d.serve(where+" (the gateway the README's first command starts)", "agentgw serve")
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

// serve runs an `agentgw serve` command of the page, as it is written, for
// the commands after it: through bash in the page's directory, with
// AGENTGW_ADDR a loopback port of its own (so a command's --addr would
// still win) and a data directory of its own. It is ready when its log says
// where its playground is, as the README says it does; it is stopped with
// SIGTERM when the page's test ends.
func (d *docRun) serve(where, text string) {
	t := d.t
	cmd := exec.Command("bash", "-c", text)
	cmd.Dir = d.dir
	cmd.Env = append(d.env(), "AGENTGW_ADDR=127.0.0.1:0", "AGENTGW_DATA="+t.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var logs syncbuf.Buffer
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = &logs, io.MultiWriter(&logs, pw)
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %s: %v", where, text, err)
	}
	exited := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		pw.Close()
		exited <- err
	}()
	stop := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
			t.Errorf("%s: %s did not stop within 30s of SIGTERM:\n%s", where, text, logs.String())
		}
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := playgroundAt.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	select {
	case base := <-found:
		t.Cleanup(stop)
		d.gateway = base
		t.Logf("%s: serving at %s: %s", where, base, text)
	case err := <-exited:
		t.Fatalf("%s: %s exited (%v) before it served:\n%s", where, text, err, logs.String())
	case <-time.After(2 * time.Minute):
		stop()
		t.Fatalf("%s: %s did not log \"playground at ...\" within 2m:\n%s", where, text, logs.String())
	}
}

// env is the environment of a command: this process's without its
// AGENTGW_* variables, agentgw first on PATH, AGENTGW_URL the gateway's,
// and the data, state and cache directories the page's own.
func (d *docRun) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "AGENTGW_") || strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "XDG_STATE_HOME=") || strings.HasPrefix(kv, "XDG_CACHE_HOME=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"PATH="+d.bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"AGENTGW_URL="+d.gateway,
		"AGENTGW_DATA="+filepath.Join(d.dir, ".agentgw-data"),
		"XDG_STATE_HOME="+filepath.Join(d.dir, ".state"),
		"XDG_CACHE_HOME="+filepath.Join(d.dir, ".cache"),
	)
}
