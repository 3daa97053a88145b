package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"

	"github.com/agentgw/agentgw/agent/toolspec"
)

// stdioRuntime runs scripts by an interpreter: {"command","parameters"} as
// JSON on stdin, the result as JSON (or text) on stdout.
type stdioRuntime struct {
	name   string // python or javascript
	interp string // configured interpreter name or path
}

// stdinMessage is what a stdio or wasm tool reads on stdin.
type stdinMessage struct {
	Command    string         `json:"command"`
	Parameters map[string]any `json:"parameters"`
}

// Name implements Runtime.
func (r *stdioRuntime) Name() string { return r.name }

// Check resolves the interpreter and the script; either missing now is a
// warning, looked up again at call time.
func (r *stdioRuntime) Check(t *Tool) ([]string, error) {
	var warns []string
	if p, err := exec.LookPath(r.interp); err == nil {
		t.interp = p
	} else {
		warns = append(warns, fmt.Sprintf("interpreter %q not found: %v", r.interp, err))
	}
	p, ok := t.entryPath(nil)
	t.entry = p
	if !ok {
		warns = append(warns, fmt.Sprintf("entry %s: no such file", p))
	}
	return warns, nil
}

// Run implements Runtime.
func (r *stdioRuntime) Run(ctx context.Context, t *Tool, call Call) (any, error) {
	interp := t.interp
	if interp == "" {
		p, err := exec.LookPath(r.interp)
		if err != nil {
			return nil, errorf(toolspec.CodeUnavailable, "interpreter %q not found", r.interp)
		}
		interp = p
	}
	if !fileExists(t.entry) {
		return nil, errorf(toolspec.CodeUnavailable, "entry %s: no such file", t.entry)
	}
	in, err := json.Marshal(stdinMessage{Command: t.Command, Parameters: call.Parameters})
	if err != nil {
		return nil, errorf(toolspec.CodeInvalidParameters, "encoding parameters: %v", err)
	}
	out, err := runProcess(ctx, procSpec{
		path: interp, args: append([]string{interp, t.entry}, t.Args...),
		dir: t.dir, workdir: t.workdir, env: t.Environ(), stdin: in, maxOut: t.MaxOutputBytes,
	})
	if err != nil {
		return nil, err
	}
	return jsonResult(out.stdout, out.cut, t.MaxOutputBytes)
}
