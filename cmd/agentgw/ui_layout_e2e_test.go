package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/agentgw/agentgw/echomodel"
)

// pageTrouble collects what a page's user would see go wrong in the
// DevTools console and network panel: console errors, uncaught exceptions,
// browser log errors (a failed resource such as a missing favicon), answers
// of 400 and above, and requests that failed.
type pageTrouble struct {
	mu   sync.Mutex
	seen []string
}

func (p *pageTrouble) add(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = append(p.seen, fmt.Sprintf(format, args...))
}

func (p *pageTrouble) list() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// watchPage starts collecting a page's trouble.
func watchPage(t *testing.T, listen func(func(any)) error) *pageTrouble {
	t.Helper()
	p := &pageTrouble{}
	err := listen(func(ev any) {
		switch ev := ev.(type) {
		case *cdpruntime.EventExceptionThrown:
			p.add("exception: %s", ev.ExceptionDetails.Text)
		case *cdpruntime.EventConsoleAPICalled:
			if ev.Type == cdpruntime.ConsoleAPICalledTypeError || ev.Type == cdpruntime.ConsoleAPICalledTypeAssert {
				p.add("console.%s", ev.Type)
			}
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError {
				p.add("log: %s %s", ev.Entry.Text, ev.Entry.URL)
			}
		case *network.EventResponseReceived:
			if ev.Response.Status >= 400 {
				p.add("HTTP %d %s", ev.Response.Status, ev.Response.URL)
			}
		case *network.EventLoadingFailed:
			if !ev.Canceled {
				p.add("failed %s: %s", ev.Type, ev.ErrorText)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// box is an element's bounding box in the viewport, from getBoundingClientRect.
type box struct{ Left, Top, Right, Bottom float64 }

func rectOf(t *testing.T, ctx context.Context, sel string) box {
	t.Helper()
	return read(t, ctx, chromedp.Evaluate[box](fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect();
		return {Left: r.left, Top: r.top, Right: r.right, Bottom: r.bottom}; })()`, sel)))
}

// TestPlaygroundLayout1280 opens the playground at 1280×900 (no token
// needed) and selects every command of every example agent: each time the
// Send button is inside the window without scrolling, the "Collects" line
// stays inside the request column, and nothing fails in the console or the
// network (no favicon 404). Sending a command without messageTemplates asks
// for no prompt preview (POST …/prompt answers those 400).
func TestPlaygroundLayout1280(t *testing.T) {
	const width, height = 1280, 900
	cfg, _ := gitConfig(t, echomodel.URL, newOrigin(t))
	gw := startGateway(t, cfg, nil)
	rec := newRecorder(t, gw)
	ctx := browser(t)
	trouble := watchPage(t, func(fn func(any)) error { return chromedp.Listen(ctx, fn) })
	drive(t, ctx, chromedp.EmulateViewport(width, height), chromedp.Navigate(rec.URL+"/ui/"),
		chromedp.WaitReady(chromedp.CSS(`#agent option[value="hello"]`)),
		chromedp.WaitReady(chromedp.CSS(`#command option[value="default"]`)))

	agents := read(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#agent option')].map(o => o.value)`))
	if len(agents) < 3 {
		t.Fatalf("the page lists agents %q", agents)
	}
	checked := 0
	for _, a := range agents {
		drive(t, ctx, pick(`#agent`, a),
			chromedp.WaitReady(chromedp.CSS(fmt.Sprintf(`#command[data-agent=%q] option`, a))))
		commands := read(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#command option')].map(o => o.value)`))
		for _, c := range commands {
			drive(t, ctx, pick(`#command`, c), chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
			send := rectOf(t, ctx, `#send`)
			if send.Top < 0 || send.Left < 0 || send.Bottom > height || send.Right > width {
				t.Errorf("%s/%s: Send at %+v, outside the %d×%d window", a, c, send, width, height)
			}
			if read(t, ctx, chromedp.Evaluate[bool](`!!document.querySelector('#command-info .collects')`)) {
				col := rectOf(t, ctx, `#compose`)
				line := rectOf(t, ctx, `#command-info .collects`)
				over := read(t, ctx, chromedp.Evaluate[bool](`(() => { const e = document.querySelector('#command-info');
					return e.scrollWidth > e.clientWidth || [...e.querySelectorAll('code')].some(c => c.getBoundingClientRect().right > e.getBoundingClientRect().right + 0.5); })()`))
				if line.Right > col.Right || over {
					t.Errorf("%s/%s: the Collects line ends at %.0f (overflowing: %v), its column at %.0f", a, c, line.Right, over, col.Right)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Error("no command showed a Collects line: nothing checked")
	}

	// hello's default command is a reply: no messageTemplates, no preview.
	drive(t, ctx, pick(`#agent`, "hello"), chromedp.WaitReady(chromedp.CSS(`#command[data-agent="hello"] option`)),
		pick(`#command`, "default"), chromedp.Click(chromedp.CSS(`#send`)), turnDone(1))
	for _, p := range rec.previews() {
		if strings.HasPrefix(p.Path, "/agents/hello/") {
			t.Errorf("the page asked %s for a prompt of a command without one", p.Path)
		}
	}
	// The icon the page names is fetched from the page's own files.
	icon := read(t, ctx, chromedp.Evaluate[string](`(async () => { const l = document.querySelector('link[rel="icon"]');
		const r = await fetch(l.href); return r.status + ' ' + r.headers.get('Content-Type') + ' ' + new URL(l.href).pathname; })()`, chromedp.EvalAwaitPromise))
	if icon != "200 image/svg+xml /ui/favicon.svg" {
		t.Errorf("the page's icon: %s", icon)
	}
	if got := trouble.list(); len(got) != 0 {
		t.Errorf("the page's console and network show trouble:\n%s", strings.Join(got, "\n"))
	}
}
