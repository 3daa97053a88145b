package main

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/agentgw/agentgw/ui"
)

// TestPlaygroundLinksInBrowser renders model text with the playground's
// Markdown renderer inside Chromium and reads every link as the browser
// parsed it: whatever control characters, whitespace, case or entities
// hide the scheme, a link is http:, https: or mailto: (a relative one
// resolves to the page's http:), never javascript:, data:, vbscript: or
// another scheme; a hidden scheme is text, no link at all.
func TestPlaygroundLinksInBrowser(t *testing.T) {
	srv := httptest.NewServer(ui.Handler())
	t.Cleanup(srv.Close)
	tests := []struct {
		md string
		// want is the protocol of each link, as the browser reads it.
		want []string
	}{
		{"[x](https://example.com/a?b=1&c=2)", []string{"https:"}},
		{"[x](mailto:a@example.com)", []string{"mailto:"}},
		{"[x](docs/a.md) [y](/ui/) [z](#top)", []string{"http:", "http:", "http:"}},
		{"[x](\u0001javascript:alert(1))", nil},
		{"[x](\u001f\bjavascript:alert(1))", nil},
		{"[x](\u007fjavascript:alert(1))", nil},
		{"[x](\u200bjavascript:alert(1))", nil},
		{"[x](java\u00adscript:alert(1))", nil},
		{"[x](\tjavascript:alert(1))", nil},
		{"[x](java\tscript:alert(1))", nil},
		{"[x](java\nscript:alert(1))", nil},
		{"[x](JaVaScRiPt:alert(1))", nil},
		{"[x](vbscript:msgbox(1))", nil},
		{"[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)", nil},
		{"![x](javascript:alert(1))", nil},
		{"<javascript:alert(1)>", nil},
		{"[x](&#106;avascript:alert(1))", []string{"http:"}},
		{"[x](javascript&colon;alert(1))", []string{"http:"}},
	}
	mds := make([]string, len(tests))
	for i, tc := range tests {
		mds[i] = tc.md
	}
	cases, err := json.Marshal(mds)
	if err != nil {
		t.Fatal(err)
	}
	ctx := browser(t)
	drive(t, ctx, chromedp.Navigate(srv.URL+"/ui/"))
	got := read(t, ctx, chromedp.Evaluate[[][]string](fmt.Sprintf(`%s.map(md => {
		const d = document.createElement('div');
		d.innerHTML = window.agentgwMarkdown(md);
		return [...d.querySelectorAll('a')].map(a => a.protocol);
	})`, cases)))
	for i, tc := range tests {
		if !slices.Equal(got[i], tc.want) && !(len(got[i]) == 0 && len(tc.want) == 0) {
			t.Errorf("%q: links %q, want %q", tc.md, got[i], tc.want)
		}
	}
}
