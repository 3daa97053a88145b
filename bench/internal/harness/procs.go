package harness

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

// Process is one server the harness started.
type Process struct {
	Name      string
	Cmd       *exec.Cmd
	Addr      string // the listening address, host:port
	DebugAddr string // the pprof listener, "" when none
	LogPath   string // its stderr
	Exited    chan struct{}

	// What started it, for Restart.
	bin       string
	args, env []string
	ready     string
	wantDebug bool
}

// Pid is the process id.
func (p *Process) Pid() int { return p.Cmd.Process.Pid }

// Set starts processes and stops them all at the end.
type Set struct {
	Dir   string // the work directory: binaries, logs, configs
	procs []*Process
}

// Start runs bin with args and env (added to the inherited environment
// minus any AGENTGW_* variable), its stderr going to <Dir>/<name>.log. When
// ready is "stdout", it waits for the "listening on ADDR" line (and, with
// wantDebug, "debug listening on ADDR") on stdout; otherwise ready is the
// address to poll with GET /healthz.
func (ps *Set) Start(ctx context.Context, name, bin string, args, env []string, ready string, wantDebug bool) (*Process, error) {
	p := &Process{Name: name, LogPath: filepath.Join(ps.Dir, name+".log"),
		bin: bin, args: args, env: env, ready: ready, wantDebug: wantDebug}
	if err := ps.run(ctx, p, os.O_TRUNC); err != nil {
		return nil, err
	}
	ps.procs = append(ps.procs, p)
	return p, nil
}

// Restart starts p again as it was started first (same arguments, so the
// same addresses), appending to its log, once it has exited.
func (ps *Set) Restart(ctx context.Context, p *Process) error {
	select {
	case <-p.Exited:
	default:
		return fmt.Errorf("restarting %s: still running", p.Name)
	}
	if p.ready == "stdout" {
		p.Addr, p.DebugAddr = "", ""
	}
	return ps.run(ctx, p, os.O_APPEND)
}

// Kill sends SIGKILL to p and waits for it to exit.
func (p *Process) Kill() {
	_ = p.Cmd.Process.Kill()
	<-p.Exited
}

// run starts p's command and waits until it is ready.
func (ps *Set) run(ctx context.Context, p *Process, mode int) error {
	logf, err := os.OpenFile(p.LogPath, os.O_CREATE|os.O_WRONLY|mode, 0o644)
	if err != nil {
		return fmt.Errorf("creating %s log: %w", p.Name, err)
	}
	defer logf.Close()
	p.Exited = make(chan struct{})
	p.Cmd = exec.Command(p.bin, p.args...)
	p.Cmd.Env = append(CleanEnv(), p.env...)
	p.Cmd.Stderr = logf
	p.Cmd.SysProcAttr = childAttr()
	var stdout io.ReadCloser
	if p.ready == "stdout" {
		if stdout, err = p.Cmd.StdoutPipe(); err != nil {
			return fmt.Errorf("%s stdout: %w", p.Name, err)
		}
	} else {
		p.Cmd.Stdout = logf
	}
	if err := p.Cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", p.Name, err)
	}
	cmd, exited := p.Cmd, p.Exited
	go func() { _ = cmd.Wait(); close(exited) }()
	if p.ready == "stdout" {
		err = p.readAddrs(ctx, stdout, p.wantDebug)
	} else {
		p.Addr = p.ready
		err = p.waitHealthy(ctx)
	}
	if err != nil {
		if !errors.Is(err, errExited) {
			p.Kill()
		}
		return fmt.Errorf("%s did not start: %w (log: %s)\n%s", p.Name, err, p.LogPath, Tail(p.LogPath))
	}
	return nil
}

// errExited is a process that exited while the harness waited for it.
var errExited = errors.New("exited")

// readAddrs parses the "listening on" lines, then drains stdout.
func (p *Process) readAddrs(ctx context.Context, stdout io.Reader, wantDebug bool) error {
	found := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "debug listening on "); ok {
				p.DebugAddr = strings.TrimSpace(v)
			} else if v, ok := strings.CutPrefix(line, "listening on "); ok {
				p.Addr = strings.TrimSpace(v)
			}
			if p.Addr != "" && (!wantDebug || p.DebugAddr != "") {
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
	case <-p.Exited:
		return errExited
	case <-time.After(15 * time.Second):
		return errors.New("no listening address after 15s")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitHealthy polls GET /healthz until it answers 200.
func (p *Process) waitHealthy(ctx context.Context) error {
	c := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := c.Get("http://" + p.Addr + "/healthz")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-p.Exited:
			return errExited
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return errors.New("GET /healthz not 200 after 30s")
}

// StopAll sends SIGTERM to every process, and SIGKILL to those still
// running after 3 seconds.
func (ps *Set) StopAll() {
	for _, p := range ps.procs {
		_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	}
	deadline := time.After(3 * time.Second)
	for _, p := range ps.procs {
		select {
		case <-p.Exited:
		case <-deadline:
			_ = p.Cmd.Process.Kill()
			<-p.Exited
		}
	}
	ps.procs = nil
}

// CleanEnv is the environment without AGENTGW_* variables, so that the
// user's settings do not leak into the measured gateways.
func CleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AGENTGW_") {
			env = append(env, kv)
		}
	}
	return env
}

// FreeAddr returns a loopback address with a port that was free a moment ago.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return "127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), nil
}

// StableAddr returns a free loopback address for a process that is
// restarted on the same address (a gateway killed and started again):
// its port lies below the kernel's ephemeral range, so that none of the
// many outgoing connections a load makes while the process is down can
// take it as its source port (which made a restart fail with "address
// already in use"). Where the range cannot be read, below 32768.
func StableAddr() (string, error) {
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > 20000 {
				low = n
			}
		}
	}
	const first = 20000
	seed := int(time.Now().UnixNano() / 1000)
	for i := range 200 {
		port := first + (seed+i*7919)%(low-first)
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			continue
		}
		ln.Close()
		return "127.0.0.1:" + strconv.Itoa(port), nil
	}
	return "", fmt.Errorf("finding a free port in %d-%d: 200 tried, all taken", first, low-1)
}

// Tail returns the last lines of a log file, for error messages.
func Tail(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	return strings.Join(lines[max(len(lines)-10, 0):], "\n")
}
