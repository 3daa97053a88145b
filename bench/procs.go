package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// process is one server the harness started.
type process struct {
	name      string
	cmd       *exec.Cmd
	addr      string // the listening address, host:port
	debugAddr string // the pprof listener, "" when none
	logPath   string // its stderr
	exited    chan struct{}
}

// pid is the process id.
func (p *process) pid() int { return p.cmd.Process.Pid }

// procSet starts processes and stops them all at the end.
type procSet struct {
	dir   string // the work directory: binaries, logs, configs
	procs []*process
}

// start runs bin with args and env (added to the inherited environment
// minus any AGENTGW_* variable), its stderr going to <dir>/<name>.log. When
// ready is "stdout", it waits for the "listening on ADDR" line (and, with
// wantDebug, "debug listening on ADDR") on stdout; otherwise ready is the
// address to poll with GET /healthz.
func (ps *procSet) start(ctx context.Context, name, bin string, args, env []string, ready string, wantDebug bool) (*process, error) {
	p := &process{name: name, logPath: filepath.Join(ps.dir, name+".log"), exited: make(chan struct{})}
	logf, err := os.Create(p.logPath)
	if err != nil {
		return nil, fmt.Errorf("creating %s log: %w", name, err)
	}
	defer logf.Close()
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = append(cleanEnv(), env...)
	p.cmd.Stderr = logf
	p.cmd.SysProcAttr = childAttr()
	var stdout io.ReadCloser
	if ready == "stdout" {
		if stdout, err = p.cmd.StdoutPipe(); err != nil {
			return nil, fmt.Errorf("%s stdout: %w", name, err)
		}
	} else {
		p.cmd.Stdout = logf
	}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	ps.procs = append(ps.procs, p)
	go func() { _ = p.cmd.Wait(); close(p.exited) }()
	if ready == "stdout" {
		err = p.readAddrs(ctx, stdout, wantDebug)
	} else {
		p.addr = ready
		err = p.waitHealthy(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("%s did not start: %w (log: %s)\n%s", name, err, p.logPath, tail(p.logPath))
	}
	return p, nil
}

// readAddrs parses the "listening on" lines, then drains stdout.
func (p *process) readAddrs(ctx context.Context, stdout io.Reader, wantDebug bool) error {
	found := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "debug listening on "); ok {
				p.debugAddr = strings.TrimSpace(v)
			} else if v, ok := strings.CutPrefix(line, "listening on "); ok {
				p.addr = strings.TrimSpace(v)
			}
			if p.addr != "" && (!wantDebug || p.debugAddr != "") {
				found <- nil
				_, _ = io.Copy(io.Discard, stdout)
				return
			}
		}
		found <- errors.New("stdout ended before the listening address")
	}()
	select {
	case err := <-found:
		return err
	case <-p.exited:
		return errors.New("exited")
	case <-time.After(15 * time.Second):
		return errors.New("no listening address after 15s")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitHealthy polls GET /healthz until it answers 200.
func (p *process) waitHealthy(ctx context.Context) error {
	c := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := c.Get("http://" + p.addr + "/healthz")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-p.exited:
			return errors.New("exited")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return errors.New("GET /healthz not 200 after 30s")
}

// stopAll sends SIGTERM to every process, and SIGKILL to those still
// running after 3 seconds.
func (ps *procSet) stopAll() {
	for _, p := range ps.procs {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
	}
	deadline := time.After(3 * time.Second)
	for _, p := range ps.procs {
		select {
		case <-p.exited:
		case <-deadline:
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	}
	ps.procs = nil
}

// cleanEnv is the environment without AGENTGW_* variables, so that the
// user's settings do not leak into the measured gateways.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AGENTGW_") {
			env = append(env, kv)
		}
	}
	return env
}

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return "127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), nil
}

// tail returns the last lines of a log file, for error messages.
func tail(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	return strings.Join(lines[max(len(lines)-10, 0):], "\n")
}
