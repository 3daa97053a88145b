package tmpl

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"text/template"
)

// The bounds of one template render (docs/agents.md, "Templates"). They hold for
// every template, the gateway's own and request-carried ones alike, on both
// evaluators (the fast one and text/template).
const (
	// maxRender caps what one render may write, so that a runaway template
	// fails with TEMPLATE_ERROR instead of exhausting memory. A helper's
	// result must also fit in what is left of it, checked before the
	// helper allocates.
	maxRender = 64 << 20
	// maxWork caps the work of one render, in units: a byte a helper reads
	// or produces is a unit, a helper call costUnit, a loop iteration (or
	// a call of a defined template) iterCost. It bounds the time a
	// template may take and what its helpers allocate in all (results not
	// printed, such as `len (indent 9 $.x)` in a loop, count too).
	maxWork = 256 << 20
	// costUnit is the cost of one helper call.
	costUnit = 16
	// iterCost is the cost of one range iteration: 262,144 of them fit in
	// a render (text/template takes a few microseconds and about a hundred
	// bytes for each; the fast evaluator far less).
	iterCost = 1024
)

// limitError is a render that went over one of its bounds. The evaluators
// stop at it: the fast one does not hand it to text/template to try again.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

// errRenderTooLarge is returned when a template renders more than maxRender.
var errRenderTooLarge = &limitError{fmt.Sprintf("template output is over %d MiB", maxRender>>20)}

// errWorkTooLarge is returned when a render does more than maxWork.
var errWorkTooLarge = &limitError{fmt.Sprintf("template did over %d Mi units of work (a unit is a byte a helper reads or makes; a call %d, a loop iteration %d)", maxWork>>20, costUnit, iterCost)}

// isLimit reports whether err ended a render for its bounds or its context.
func isLimit(err error) bool {
	var le *limitError
	return errors.As(err, &le) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// budget is what is left to one render: output, work, and its context,
// which is checked at every charge so that a render stops when its request
// ends.
type budget struct {
	ctx  context.Context
	out  int // bytes written
	work int // units spent
}

func newBudget(ctx context.Context) *budget { return &budget{ctx: ctx} }

// spend charges n units of work.
func (b *budget) spend(n int) error {
	if n < 0 || n > maxWork-b.work {
		b.work = maxWork
		return errWorkTooLarge
	}
	b.work += n
	if err := b.ctx.Err(); err != nil {
		return fmt.Errorf("template rendering stopped: %w", err)
	}
	return nil
}

// write charges n bytes of output before they are written.
func (b *budget) write(n int) error {
	if n > maxRender-b.out {
		return errRenderTooLarge
	}
	b.out += n
	return nil
}

// room checks, before a helper allocates its result of n bytes, that the
// result fits in the output left, and charges it as work.
func (b *budget) room(name string, n int) error {
	if n < 0 || n > maxRender-b.out {
		return &limitError{fmt.Sprintf("%s would make a result of over %d bytes, more than the %d MiB template output has left", name, max(n, 0), maxRender>>20)}
	}
	return b.spend(n)
}

// funcs are the helpers bound to this render, for text/template: its
// built-ins that can allocate in proportion to their arguments (print,
// println, printf) are replaced by charged ones.
func (b *budget) funcs() template.FuncMap {
	m := make(template.FuncMap, len(helpers)+3)
	for name, h := range helpers {
		m[name] = func(args ...any) (any, error) { return h(b, args...) }
	}
	m["print"] = func(args ...any) (string, error) { return b.sprint("print", fmt.Sprint, args) }
	m["println"] = func(args ...any) (string, error) { return b.sprint("println", fmt.Sprintln, args) }
	m["printf"] = func(format string, args ...any) (string, error) {
		if err := b.checkWidths(format, args); err != nil {
			return "", err
		}
		return b.sprint("printf", func(a ...any) string { return fmt.Sprintf(format, a...) }, args)
	}
	return m
}

// sprint formats args with f, charging their text before and the result
// after.
func (b *budget) sprint(name string, f func(...any) string, args []any) (string, error) {
	n := costUnit
	for _, a := range args {
		if s, ok := a.(string); ok {
			n += len(s)
		}
	}
	if err := b.room(name, n); err != nil {
		return "", err
	}
	s := f(args...)
	return s, b.spend(len(s))
}

// checkWidths refuses a printf format whose widths or precisions (written
// or given as * arguments) alone would pass the output left: fmt pads
// before anything could stop it.
func (b *budget) checkWidths(format string, args []any) error {
	left := maxRender - b.out
	arg := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
	verb:
		for i++; i < len(format); i++ {
			c := format[i]
			switch {
			case c == '*':
				if arg < len(args) {
					if n, ok := args[arg].(int); ok && (n > left || -n > left) {
						return b.room("printf", n)
					}
				}
				arg++
			case c >= '0' && c <= '9':
				j := i
				for j < len(format) && format[j] >= '0' && format[j] <= '9' {
					j++
				}
				if n, err := strconv.Atoi(format[i:j]); err != nil || n > left {
					return b.room("printf", maxRender+1)
				}
				i = j - 1
			case c == '+' || c == '-' || c == '#' || c == ' ' || c == '.' || c == '[' || c == ']':
			default:
				if c != '%' {
					arg++
				}
				break verb
			}
		}
	}
	return nil
}
