package gitrepo

import (
	"strings"
	"testing"
)

func TestAllowMatch(t *testing.T) {
	tests := []struct {
		pattern, url string
		want         bool
	}{
		{"github.com/acme/app", "https://github.com/acme/app.git", true},
		{"github.com/acme/app", "git@github.com:acme/app.git", true},
		{"github.com/acme/app", "github.com/acme/app2", false},
		{"github.com/acme/app", "gitlab.com/acme/app", false},
		{"github.com/acme/app", "github.com:8443/acme/app", false},
		{"github.com/acme/app", "github.com/ACME/app", false},
		{"github.com/acme/*", "git@github.com:acme/app.git", true},
		{"github.com/acme/*", "github.com/acme/team/app", false},
		{"github.com/acme/*", "github.com/other/app", false},
		{"github.com/acme/**", "github.com/acme/team/app", true},
		{"github.com/acme/**", "github.com/acme", true},
		{"github.com/**/app", "github.com/app", true},
		{"github.com/**/app", "github.com/a/b/c/app", true},
		{"github.com/**/app", "github.com/a/b/c/app2", false},
		{"github.com/**/**/x", "github.com/x", true},
		{"**", "https://anything.example/x/y", true},
		{"*.example.com/**", "https://git.example.com/x/y", true},
		{"*.example.com/**", "https://example.com/x/y", false},
		{"https://GitHub.com/acme/*.git", "github.com/acme/app", true},
		{"git@github.com:acme/*", "https://github.com/acme/app", true},
		{"github.com/acme/app-[0-9]", "github.com/acme/app-7", true},
		{"github.com/acme/app-[0-9]", "github.com/acme/app-x", false},
		{"/srv/git/*", "file:///srv/git/app.git", true},
		{"/srv/git/*", "/srv/other/app", false},
	}
	for _, tt := range tests {
		p, err := compilePattern(tt.pattern)
		if err != nil {
			t.Fatalf("compilePattern(%q): %v", tt.pattern, err)
		}
		n, err := NormalizeURL(tt.url)
		if err != nil {
			t.Fatalf("NormalizeURL(%q): %v", tt.url, err)
		}
		if got := p.match(n); got != tt.want {
			t.Errorf("pattern %q, url %q (%s): match = %v; want %v", tt.pattern, tt.url, n, got, tt.want)
		}
	}
}

func TestCompilePatternErrors(t *testing.T) {
	for _, raw := range []string{"", "github.com/[", "ftp://x/y", "github.com/a/[b"} {
		if _, err := compilePattern(raw); err == nil || !strings.Contains(err.Error(), "allow pattern") {
			t.Errorf("compilePattern(%q) = %v; want an allow pattern error", raw, err)
		}
	}
}

func TestDefaultAllowIsOwnURL(t *testing.T) {
	e := &entry{cfg: RepoConfig{Name: "app", URL: "https://GitHub.com/acme/app.git"}}
	if err := e.initRemote(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	for url, want := range map[string]bool{
		"git@github.com:acme/app.git":    true,
		"https://github.com/acme/app":    true,
		"ssh://git@github.com/acme/app/": true,
		"https://github.com/acme/other":  false,
		"https://github.com/acme":        false,
	} {
		n, _ := NormalizeURL(url)
		if got := e.allows(n); got != want {
			t.Errorf("default allow of %s: %q = %v; want %v", e.cfg.URL, url, got, want)
		}
	}
}

func TestLiteralPatternEscapesGlobs(t *testing.T) {
	p := literalPattern("host/a*b/[x]/**")
	if !p.match("host/a*b/[x]/**") {
		t.Error("a literal pattern does not match its own URL")
	}
	for _, n := range []string{"host/aXb/[x]/**", "host/a*b/x/**", "host/a*b/[x]/y/z"} {
		if p.match(n) {
			t.Errorf("literal pattern matches %q", n)
		}
	}
}

func FuzzAllowMatch(f *testing.F) {
	f.Add("github.com/acme/*", "git@github.com:acme/app.git")
	f.Add("**/x/**", "https://h/a/x/b")
	f.Add("*.example.com/**", "https://git.example.com/x")
	f.Add("h/[a-", "h/a")
	f.Add(`h/\*`, "h/*")
	f.Fuzz(func(t *testing.T, raw, url string) {
		n, err := NormalizeURL(url)
		if err != nil {
			return
		}
		if !literalPattern(n).match(n) {
			t.Fatalf("the literal pattern of %q does not match it", n)
		}
		all, _ := compilePattern("**")
		if !all.match(n) {
			t.Fatalf("** does not match %q", n)
		}
		if p, err := compilePattern(raw); err == nil {
			p.match(n)
		}
	})
}

func BenchmarkPick(b *testing.B) {
	m := &Manager{byName: map[string]*entry{}}
	for _, raw := range []string{"github.com/a/*", "github.com/b/**", "gitlab.com/**/x", "*.corp.example/**"} {
		for i := 0; i < 10; i++ {
			p, err := compilePattern(raw)
			if err != nil {
				b.Fatal(err)
			}
			m.entries = append(m.entries, &entry{allow: []pattern{p}})
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.pick(Selection{RemoteURL: "git@git.corp.example:team/svc/app.git"}); err != nil {
			b.Fatal(err)
		}
	}
}
