package plan

import (
	"errors"
	"fmt"
	"strings"
)

// Output is an output path expression (seed 002, "Expressions"): where a step's outcome is written in
// the state.
//
//	state.a                 on success the result is written to state.a; a failure writes nothing
//	state.ok || state.err   branch: success writes the result to the first path, a failure (FAILED or
//	                        TIMEOUT) writes {"status": <status name>, "message": <error text>} to the second
//	                        and, unless the step says onError: fail, the plan goes on into it
//	state.a && state.b      fan-out: on success the result is written to every path
//
// Every path is under state ("state.x"; the root is required). The reference prefixes "$" and "†" are
// accepted and ignored. || takes exactly two paths; mixing || and && is an error.
type Output struct {
	src    string
	paths  []Path
	branch bool
}

// ParseOutput parses an output path expression (see Output).
func ParseOutput(s string) (*Output, error) {
	src := strings.TrimSpace(s)
	if src == "" {
		return nil, errors.New("empty output path")
	}
	hasOr, hasAnd := strings.Contains(src, "||"), strings.Contains(src, "&&")
	if hasOr && hasAnd {
		return nil, fmt.Errorf("output %q mixes || and &&; use one of them", src)
	}
	o := &Output{src: src, branch: hasOr}
	sep := "&&"
	if hasOr {
		sep = "||"
	}
	operands := strings.Split(src, sep)
	if hasOr && len(operands) != 2 {
		return nil, fmt.Errorf("output %q: || takes exactly two paths (success || failure), got %d", src, len(operands))
	}
	for i, operand := range operands {
		p, err := parseOutputPath(strings.TrimSpace(operand))
		if err != nil {
			return nil, fmt.Errorf("output %q, path %d: %w", src, i+1, err)
		}
		o.paths = append(o.paths, p)
	}
	return o, nil
}

// parseOutputPath parses one path of an output expression.
func parseOutputPath(s string) (Path, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "$"), dagger)
	p, err := ParsePath(s)
	if err != nil {
		return nil, err
	}
	if p[0] != RootState {
		return nil, fmt.Errorf("%q is not under state (outputs are written to state.<key>)", s)
	}
	if len(p) < 2 {
		return nil, fmt.Errorf("%q names the whole state; name a key under it", s)
	}
	return p, nil
}

// String returns the expression as written (trimmed).
func (o *Output) String() string { return o.src }

// Paths returns the output's paths in order (each starting with "state").
func (o *Output) Paths() []Path { return append([]Path(nil), o.paths...) }

// Branch reports whether the output is a success || failure branch.
func (o *Output) Branch() bool { return o.branch }

// Write records a step's outcome in st. status COMPLETED is a success and writes result; FAILED and
// TIMEOUT are failures and write, for a branch, {"status": status, "message": failure's text} to the
// second path; other statuses write nothing. Errors of several paths are joined.
func (o *Output) Write(st *State, result any, failure error, status Status) error {
	switch {
	case status == Completed:
		targets := o.paths
		if o.branch {
			targets = o.paths[:1]
		}
		var errs []error
		for _, p := range targets {
			errs = append(errs, st.Set(p, result))
		}
		return errors.Join(errs...)
	case status.failed() && o.branch:
		msg := ""
		if failure != nil {
			msg = failure.Error()
		}
		return st.Set(o.paths[1], map[string]any{"status": string(status), "message": msg})
	}
	return nil
}
