package agent

import (
	"cmp"
	"slices"
	"strings"
)

// Severity tells errors, which stop an agent from loading, from warnings.
type Severity int

// Severities.
const (
	SeverityError Severity = iota
	SeverityWarning
)

// String is "error" or "warning".
func (s Severity) String() string {
	if s == SeverityWarning {
		return "warning"
	}
	return "error"
}

// Diagnostic is one problem found in a definition, with its position.
type Diagnostic struct {
	Pos      Position
	Severity Severity
	Message  string
}

// String renders "file:line:col: message", with "warning: " before the
// message of a warning.
func (d Diagnostic) String() string {
	if d.Severity == SeverityWarning {
		return d.Pos.String() + ": warning: " + d.Message
	}
	return d.Pos.String() + ": " + d.Message
}

// Diagnostics is a list of problems.
type Diagnostics []Diagnostic

// Add appends a problem of severity sev at pos.
func (ds *Diagnostics) Add(sev Severity, pos Position, msg string) {
	*ds = append(*ds, Diagnostic{Pos: pos, Severity: sev, Message: msg})
}

// Errors counts the errors.
func (ds Diagnostics) Errors() int {
	n := 0
	for _, d := range ds {
		if d.Severity == SeverityError {
			n++
		}
	}
	return n
}

// Sort orders the diagnostics by file, line and column.
func (ds Diagnostics) Sort() {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(strings.Compare(a.Pos.File, b.Pos.File), cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Column, b.Pos.Column))
	})
}

// String renders one diagnostic per line.
func (ds Diagnostics) String() string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	return b.String()
}
