package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentgw/agentgw/agent/toolspec"
)

// argKeyRE is a parameter name that can become a --flag without being
// mistaken for anything else (no '=', no leading '-').
var argKeyRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// nativeRuntime runs a binary as `entry args... command --key=value ...`,
// never through a shell; stdout (trimmed) is the result. Only the
// parameters the tool's schema declares become flags.
type nativeRuntime struct{}

// Name implements Runtime.
func (nativeRuntime) Name() string { return "native" }

// Check resolves the entry (a missing or non-executable file is a
// warning) and checks the schema: closed, and every declared name a valid
// flag name.
func (nativeRuntime) Check(t *Tool) ([]string, error) {
	if err := t.checkNativeParams(); err != nil {
		return nil, err
	}
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
	argv, err := nativeArgv(t.entry, t.Args, t.Command, t.argNames, call.Parameters)
	if err != nil {
		return nil, err
	}
	if !fileExists(t.entry) {
		return nil, errorf(toolspec.CodeUnavailable, "entry %s: no such file", t.entry)
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

// checkNativeParams sets t.argNames from the schema: a native tool's
// parameters become command-line flags, so its schema may not admit
// undeclared names and each declared name must be a flag name.
func (t *Tool) checkNativeParams() error {
	if t.params.open != "" {
		return fmt.Errorf("parameters: %s: a native tool takes only the parameters it declares (they become command-line flags)", t.params.open)
	}
	names := slices.Sorted(maps.Keys(t.params.declared))
	for _, k := range names {
		if !argKeyRE.MatchString(k) {
			return fmt.Errorf("parameters: property %q cannot be a command-line flag: letters, digits, '_', '.' and '-', not first", k)
		}
	}
	t.argNames = names
	return nil
}

// nativeArgv builds `entry args... command --key=value ...` from the
// declared names (sorted) present in params: strings as is, numbers and
// booleans formatted, arrays as one --key=value per element, objects and
// null as JSON text. Each flag is one argv entry, so a value (even one
// starting with '-') never becomes a flag of its own. A parameter whose
// name is not declared is refused: nothing the caller names becomes a flag
// the tool's author did not declare.
func nativeArgv(entry string, args []string, command string, declared []string, params map[string]any) ([]string, error) {
	argv := append([]string{entry}, args...)
	argv = append(argv, command)
	for k := range params {
		if _, ok := slices.BinarySearch(declared, k); !ok || !argKeyRE.MatchString(k) {
			return nil, errorf(toolspec.CodeInvalidParameters, "parameter %q: not declared; it cannot become a command-line flag", k)
		}
	}
	for _, k := range declared {
		v, ok := params[k]
		if !ok {
			continue
		}
		vals := []any{v}
		if arr, ok := v.([]any); ok {
			vals = arr
		}
		for _, v := range vals {
			s, err := argValue(v)
			if err != nil {
				return nil, errorf(toolspec.CodeInvalidParameters, "parameter %q: %v", k, err)
			}
			argv = append(argv, "--"+k+"="+s)
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
