package tmpl

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/allocs"
)

// TestTemplateBounds: templates that would make far more than the output
// cap, or loop over costly calls, stop at their bound with a TEMPLATE_ERROR
// message, and allocate no more than it while doing so. Before, indent,
// replace and friends made their whole result first (GiBs), and the fast
// path's error ran the template again through text/template.
func TestTemplateBounds(t *testing.T) {
	data := map[string]any{
		"s":    strings.Repeat("a\n", 5000),
		"big":  strings.Repeat("b", 64<<10),
		"nl":   strings.Repeat("\n", 200),
		"many": strings.Repeat("\n", 5<<20),
		"mid":  strings.Repeat("\n", 100000),
		"ctl":  strings.Repeat("\x01", 12<<20),
		"list": make([]any, 2000),
		"n":    10000000,
	}
	const (
		small = 4 << 20 // about what a refusal up front may allocate
		// text/template allocates about a hundred bytes per iteration
		// (more under the race detector).
		slow = maxWork / iterCost * 256
	)
	tests := []struct {
		name, src  string
		restricted bool
		want       string // in the error
		maxAlloc   uint64
	}{
		{"indent", `{{ indent 100000 .s }}`, true, "indent would make a result of over", small},
		{"indent overflow", `{{ indent 9223372036854775807 .s }}`, true, "indent would make a result of over", small},
		{"replace", `{{ replace "a" .big .s }}`, true, "replace would make a result of over", small},
		{"join", `{{ join .big .list }}`, true, "join would make a result of over", small},
		{"lines", `{{ range lines .many }}x{{ end }}`, true, "lines would make a result of over", small},
		{"json", `{{ json .ctl }}`, true, "json would make a result of over", small},
		{"printf width", `{{ printf "%999999999d" 1 }}`, false, "printf would make a result of over", small},
		{"printf star", `{{ printf "%*d" 999999999 1 }}`, false, "printf would make a result of over", small},
		{"range of a data number", `{{ range .n }}x{{ end }}`, true, "range over int is not allowed", small},
		{"range over an integer", `{{ range 100000000000 }}{{ end }}`, false, errWorkTooLarge.msg, small},
		{"range over an integer, text/template", `{{ range $i := 100000000000 }}{{ end }}`, false, errWorkTooLarge.msg, slow},
		{"calls in a loop", `{{ range lines .nl }}{{ len (indent 1000 $.s) }}{{ end }}`, true, errWorkTooLarge.msg, maxWork + maxRender},
		{"reads in a loop", `{{ range lines .mid }}{{ contains "z" $.big }}{{ end }}`, true, errWorkTooLarge.msg, maxWork + maxRender},
		{"recursion", `{{ define "a" }}{{ template "b" }}{{ template "b" }}{{ end }}{{ define "b" }}{{ template "c" }}{{ template "c" }}{{ end }}` +
			`{{ define "c" }}{{ range 1000000 }}{{ end }}{{ end }}{{ range 100 }}{{ template "a" }}{{ end }}`, false, errWorkTooLarge.msg, slow},
		{"output", `{{ range lines .s }}{{ $.big }}{{ end }}`, true, errRenderTooLarge.msg, 2*maxRender + small},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tpl, err := parseTemplate("t", tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if tc.restricted {
				if err := CheckRestricted(tpl); err != nil {
					t.Fatal(err)
				}
			}
			var out string
			got := allocs.Of(func() { out, err = Execute(context.Background(), tpl, data) })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %d bytes and error %v, want %q", len(out), err, tc.want)
			}
			if got > tc.maxAlloc {
				t.Errorf("allocated %d MiB, want at most %d MiB", got>>20, tc.maxAlloc>>20)
			}
			if te := RenderError(err); te.(*apierr.Error).Code != apierr.CodeTemplateError {
				t.Errorf("reported as %v, want TEMPLATE_ERROR", te)
			}
		})
	}
}

// countdownCtx is a context that ends after its Err has been asked n times:
// a request that ends in the middle of a render, without timing.
type countdownCtx struct {
	context.Context
	n atomic.Int64
}

func (c *countdownCtx) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func (c *countdownCtx) Deadline() (time.Time, bool) { return time.Time{}, false }

// TestRenderStopsWithItsRequest: a render checks its context as it loops,
// on both evaluators, and stops soon after the request ended, which the
// runner reports as the client going away.
func TestRenderStopsWithItsRequest(t *testing.T) {
	data := map[string]any{"list": make([]any, 1<<20), "s": "x"}
	for _, src := range []string{
		`{{ range .list }}{{ $.s }}{{ end }}`,           // the fast evaluator
		`{{ range $i, $e := .list }}{{ $.s }}{{ end }}`, // text/template
		`{{ range 100000000 }}{{ end }}`,                // text/template
		`{{ range .list }}{{ trim $.s }}{{ end }}`,
	} {
		tpl, err := parseTemplate("t", src)
		if err != nil {
			t.Fatal(err)
		}
		ctx := &countdownCtx{Context: context.Background()}
		ctx.n.Store(1000)
		out, err := Execute(ctx, tpl, data)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: got %d bytes and %v, want it stopped by its context", src, len(out), err)
		}
		if asked := 1000 - ctx.n.Load(); asked > 1003 {
			t.Errorf("%s: the context was asked %d times after it ended", src, asked-1000)
		}
		var e *apierr.Error
		if !errors.As(RenderError(err), &e) || e.Code != "CANCELED" {
			t.Errorf("%s: reported as %v, want CANCELED", src, RenderError(err))
		}
	}
}

// TestHelpersWithinBudget: helpers of ordinary size still work, and the
// sizes the budget checks before it allocates are the sizes made.
func TestHelpersWithinBudget(t *testing.T) {
	for _, tc := range []struct{ n int }{{0}, {-3}, {2}, {17}} {
		for _, s := range []string{"", "a", "a\n\nb\n", "\n\n", "x\ny"} {
			if got, want := indentSize(tc.n, s), len(indent(tc.n, s)); got != want {
				t.Errorf("indentSize(%d, %q) = %d, want %d", tc.n, s, got, want)
			}
		}
	}
	for _, v := range []any{nil, true, 12, 1.5, "a<b>&\"\\\x01\u2028é\xff", []string{"x", "<"}, []any{map[string]any{"k\n": []any{"v", 3}}}} {
		n, ok := jsonSize(v, maxRender)
		j, err := jsonFunc(newBudget(context.Background()), v)
		if err != nil || !ok || n < len(j.(string)) {
			t.Errorf("jsonSize(%#v) = %d %v, below the %d bytes of %s (%v)", v, n, ok, len(j.(string)), j, err)
		}
	}
}

// The line helpers as first written: they split the whole text.
func headRef(n int, s string) string {
	ls := lines(s)
	if n < len(ls) {
		ls = ls[:max(n, 0)]
	}
	return strings.Join(ls, "\n")
}

func tailRef(n int, s string) string {
	ls := lines(s)
	if n < len(ls) {
		ls = ls[len(ls)-max(n, 0):]
	}
	return strings.Join(ls, "\n")
}

func indentRef(n int, s string) string {
	pad := strings.Repeat(" ", max(n, 0))
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		if l != "" {
			ls[i] = pad + l
		}
	}
	return strings.Join(ls, "\n")
}

// FuzzLineHelpers: head, tail and indent, which no longer split the whole
// text, give what they gave; indentSize is indent's length; truncate keeps
// a prefix of at most n runes.
func FuzzLineHelpers(f *testing.F) {
	for _, s := range []string{"", "a", "a\nb", "a\nb\n", "\n\n", "\nb", "a\n\nb\n\n", "héllo\nwörld"} {
		f.Add(2, s)
	}
	f.Fuzz(func(t *testing.T, n int, s string) {
		n = n % 40
		if got, want := head(n, s), headRef(n, s); got != want {
			t.Fatalf("head(%d, %q) = %q, want %q", n, s, got, want)
		}
		if got, want := tail(n, s), tailRef(n, s); got != want {
			t.Fatalf("tail(%d, %q) = %q, want %q", n, s, got, want)
		}
		got := indent(n, s)
		if want := indentRef(n, s); got != want {
			t.Fatalf("indent(%d, %q) = %q, want %q", n, s, got, want)
		}
		if size := indentSize(n, s); size != len(got) {
			t.Fatalf("indentSize(%d, %q) = %d, want %d", n, s, size, len(got))
		}
		tr := Truncate(n, s)
		if kept := strings.TrimSuffix(tr, "…"); !strings.HasPrefix(s, kept) || len(tr) > truncateSize(n, s) ||
			(tr != s && utf8.RuneCountInString(kept) != max(n, 0)) {
			t.Fatalf("truncate(%d, %q) = %q", n, s, tr)
		}
	})
}

// FuzzRestrictedTemplate: whatever a client sends that passes the
// request-carried checks renders within the bounds, without a panic.
func FuzzRestrictedTemplate(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add(s)
	}
	for _, s := range []string{
		`{{ range lines .activeEditor.content }}{{ indent 100000000 $.activeEditor.content }}{{ end }}`,
		`{{ range .list }}{{ replace "" $.activeEditor.content $.activeEditor.content }}{{ end }}`,
		`{{ range .strs }}{{ join $.activeEditor.content $.strs | len }}{{ end }}`,
		`{{ range .n }}x{{ end }}`, `{{ json . }}{{ fence "go" (json .) }}`,
	} {
		f.Add(s)
	}
	data := fastData()
	f.Fuzz(func(t *testing.T, src string) {
		tp, err := parseTemplate("f", src)
		if err != nil || CheckRestricted(tp) != nil {
			return
		}
		out, err := Execute(context.Background(), tp, data)
		if len(out) > maxRender {
			t.Fatalf("%q: rendered %d bytes (%v)", src, len(out), err)
		}
	})
}
