package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/agentgw/agentgw/agent/toolspec"
)

// drainGrace is how long output pipes may stay open after the process
// group is gone (held by a process that left the group) before they are
// closed under it, once they hold nothing unread.
const drainGrace = time.Second

// procSpec is one process to run.
type procSpec struct {
	path    string    // the executable
	args    []string  // argv, argv[0] included
	dir     string    // the working directory, by path
	workdir *confined // dir inside its root, when confined
	env     []string
	stdin   []byte
	maxOut  int
}

// procOutput is what a process left behind.
type procOutput struct {
	stdout []byte
	cut    bool   // stdout went past maxOut
	stderr string // the end of stderr
}

// runProcess runs ps in its own process group with stdout capped and the
// start and end of stderr kept. When ctx ends the whole group is killed;
// after the process exits any member left in its group is killed too. The
// error is ctx's when ctx ended the process, a *ResultError (UNAVAILABLE)
// when it could not start, or the exit status with stderr.
func runProcess(ctx context.Context, ps procSpec) (procOutput, error) {
	var out procOutput
	dir, wd, err := ps.startDir()
	if err != nil {
		return out, errorf(toolspec.CodeUnavailable, "workdir: %v", err)
	}
	p, err := openPipes()
	if err != nil {
		closeFiles(wd)
		return out, err
	}
	cmd := &exec.Cmd{
		Path: ps.path, Args: ps.args, Dir: dir, Env: append([]string{}, ps.env...),
		Stdin: p.inR, Stdout: p.outW, Stderr: p.errW,
	}
	setProcessGroup(cmd)
	startErr := cmd.Start()
	closeFiles(wd) // the child is in it now, or failed to get there
	p.closeChildEnds()
	if startErr != nil {
		p.closeAll()
		return out, errorf(toolspec.CodeUnavailable, "starting %s: %v", ps.path, startErr)
	}
	stdout := &headBuffer{max: ps.maxOut}
	stderr := newStderrBuffer(stderrKeep)
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = io.Copy(stdout, p.outR) })
	wg.Go(func() { _, _ = io.Copy(stderr, p.errR) })
	go func() {
		_, _ = p.inW.Write(ps.stdin)
		_ = p.inW.Close()
	}()
	waitErr := waitOrKill(ctx, cmd)
	killGroup(cmd)
	drain(ctx, &wg, p, drainGrace)
	out.stdout, out.cut = stdout.bytes()
	out.stderr = strings.TrimSpace(stderr.String())
	switch {
	case waitErr == nil:
		return out, nil
	case ctx.Err() != nil:
		return out, context.Cause(ctx)
	}
	return out, exitError(waitErr, out.stderr)
}

// startDir is the directory to give the child as its Dir. A confined
// workdir is opened through its root now and, where the system can name an
// open directory (Linux's /proc/self/fd), given by that name: the child
// changes into the directory that is open, not whatever is at its path by
// then. wd is that open directory, to close once the child started; nil
// when the workdir is not confined or given by path (elsewhere, where a
// directory swapped for a symlink between the open and the child's chdir
// is still followed).
func (ps procSpec) startDir() (dir string, wd *os.File, _ error) {
	if ps.workdir == nil {
		return ps.dir, nil, nil
	}
	f, err := ps.workdir.open()
	if err != nil {
		return "", nil, err
	}
	if name, ok := openDirName(f); ok {
		return name, f, nil
	}
	_ = f.Close()
	return ps.workdir.path, nil, nil
}

// waitOrKill waits for cmd, killing its process group when ctx ends first.
func waitOrKill(ctx context.Context, cmd *exec.Cmd) error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		killGroup(cmd)
		return <-done
	}
}

// drain waits for the output copies to end and closes the parent's pipe
// ends. The copies end by themselves when the last writer of each pipe is
// gone; a process that left the group may hold a pipe open, so after grace
// the pipes are closed under the copies — but only once nothing is left
// unread in them: output still buffered in a pipe means its copy has not
// run yet (a starved CPU), not that the pipe is held, so the wait goes on
// while there is some, until ctx (the call's) ends.
func drain(ctx context.Context, wg *sync.WaitGroup, p *pipes, grace time.Duration) {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	timer := time.NewTimer(grace)
	defer timer.Stop()
	for {
		select {
		case <-done:
			p.closeAll()
			return
		case <-ctx.Done():
		case <-timer.C:
			if unread(p.outR) || unread(p.errR) {
				timer.Reset(grace)
				continue
			}
		}
		p.closeAll()
		<-done
		return
	}
}

// exitError describes a failed process with the end of its stderr.
func exitError(err error, stderr string) error {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return fmt.Errorf("waiting for the tool: %w", err)
	}
	if stderr == "" {
		return fmt.Errorf("%s (no stderr)", ee.ProcessState.String())
	}
	return fmt.Errorf("%s: %s", ee.ProcessState.String(), stderr)
}

// pipes are the three stdio pipes of a child process.
type pipes struct {
	inR, inW, outR, outW, errR, errW *os.File
}

// openPipes creates the stdio pipes.
func openPipes() (*pipes, error) {
	var p pipes
	var err error
	if p.inR, p.inW, err = os.Pipe(); err != nil {
		return nil, fmt.Errorf("creating stdin pipe: %w", err)
	}
	if p.outR, p.outW, err = os.Pipe(); err != nil {
		p.closeAll()
		return nil, fmt.Errorf("creating stdout pipe: %w", err)
	}
	if p.errR, p.errW, err = os.Pipe(); err != nil {
		p.closeAll()
		return nil, fmt.Errorf("creating stderr pipe: %w", err)
	}
	return &p, nil
}

// closeChildEnds closes the ends the child inherited.
func (p *pipes) closeChildEnds() {
	closeFiles(p.inR, p.outW, p.errW)
}

// closeAll closes every end; closing twice is harmless.
func (p *pipes) closeAll() {
	closeFiles(p.inR, p.inW, p.outR, p.outW, p.errR, p.errW)
}

// closeFiles closes the non-nil files, ignoring errors.
func closeFiles(fs ...*os.File) {
	for _, f := range fs {
		if f != nil {
			_ = f.Close()
		}
	}
}
