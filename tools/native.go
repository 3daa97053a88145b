package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// argKeyRE is a parameter name that can become a --flag without being
// mistaken for anything else (no '=', no leading '-').
var argKeyRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// nativeRuntime runs a binary as `entry args... command --key value ...`,
// never through a shell; stdout (trimmed) is the result.
type nativeRuntime struct{}

// Name implements Runtime.
func (nativeRuntime) Name() string { return "native" }

// Check resolves the entry: a missing or non-executable file is a warning.
func (nativeRuntime) Check(t *Tool) ([]string, error) {
	p, ok := t.entryPath(exec.LookPath)
	t.entry = p
	if !ok {
		return []string{fmt.Sprintf("entry %s: no such file", p)}, nil
	}
	if info, err := os.Stat(p); err == nil && info.Mode().Perm()&0o111 == 0 {
		return []string{fmt.Sprintf("entry %s: not executable", p)}, nil
	}
	return nil, nil
}

// Run implements Runtime.
func (nativeRuntime) Run(ctx context.Context, t *Tool, call Call) (any, error) {
	argv, err := nativeArgv(t.entry, t.Args, t.Command, call.Parameters)
	if err != nil {
		return nil, err
	}
	if !fileExists(t.entry) {
		return nil, errorf(CodeUnavailable, "entry %s: no such file", t.entry)
	}
	out, err := runProcess(ctx, procSpec{
		path: t.entry, args: argv, dir: t.dir, workdir: t.workdir, env: t.Environ(), maxOut: t.MaxOutputBytes,
	})
	if err != nil && ctx.Err() == nil && len(bytes.TrimSpace(out.stdout)) > 0 {
		// Many programs (test runners, linters) report what failed on
		// stdout: keep its end in the error.
		return nil, fmt.Errorf("%w\n--- stdout (end) ---\n%s", err, stdoutTail(out.stdout, nativeFailureKeep))
	}
	if err != nil {
		return nil, err
	}
	return cutText(out.stdout, out.cut, t.MaxOutputBytes), nil
}

// nativeFailureKeep is how much of a failed native tool's stdout its error
// keeps.
const nativeFailureKeep = 16 << 10

// stdoutTail is the end of b, at most n bytes, cut at a line start.
func stdoutTail(b []byte, n int) string {
	b = bytes.TrimSpace(b)
	if len(b) <= n {
		return string(b)
	}
	b = b[len(b)-n:]
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	return "[...]\n" + strings.ToValidUTF8(string(b), "")
}

// nativeArgv builds `entry args... command --key value ...` with the
// parameters sorted by key: strings as is, numbers and booleans formatted,
// arrays as one --key per element, objects and null as JSON text.
func nativeArgv(entry string, args []string, command string, params map[string]any) ([]string, error) {
	argv := append([]string{entry}, args...)
	argv = append(argv, command)
	keys := make([]string, 0, len(params))
	for k := range params {
		if !argKeyRE.MatchString(k) {
			return nil, errorf(CodeInvalidParameters, "parameter name %q cannot be a command-line flag", k)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		vals := []any{params[k]}
		if arr, ok := params[k].([]any); ok {
			vals = arr
		}
		for _, v := range vals {
			s, err := argValue(v)
			if err != nil {
				return nil, errorf(CodeInvalidParameters, "parameter %q: %v", k, err)
			}
			argv = append(argv, "--"+k, s)
		}
	}
	return argv, nil
}

// argValue formats one parameter value as a single argv entry.
func argValue(v any) (string, error) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case bool:
		s = strconv.FormatBool(x)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", fmt.Errorf("not a finite number")
		}
		s = strconv.FormatFloat(x, 'f', -1, 64)
	case int:
		s = strconv.Itoa(x)
	case int64:
		s = strconv.FormatInt(x, 10)
	case json.Number:
		s = x.String()
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return "", fmt.Errorf("encoding as JSON: %w", err)
		}
		s = string(b)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return "", fmt.Errorf("contains a NUL byte")
	}
	return s, nil
}
