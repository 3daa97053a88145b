package gitrepo

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// remoteURLManager allows git.example.com/team/proj, by an allow pattern
// and by the repository's own URL.
func remoteURLManager(t *testing.T) *Manager {
	t.Helper()
	m := &Manager{byName: map[string]*entry{}}
	p, err := compilePattern("git.example.com/team/proj")
	if err != nil {
		t.Fatal(err)
	}
	byPattern := &entry{cfg: RepoConfig{Name: "proj"}, allow: []pattern{p}}
	own := &entry{cfg: RepoConfig{Name: "own", URL: "https://git.example.com/team/own.git"}}
	if err := own.initRemote(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	m.entries = []*entry{byPattern, own}
	m.byName["proj"], m.byName["own"] = byPattern, own
	return m
}

// TestRemoteURLTricks: a vcs.remoteUrl whose host, read by a URL parser, is
// not the allowed one never selects the allowed repository, however it
// hides the allowed host (after a fragment, a query, a backslash, in the
// user info of a scp-like or scheme-less address); the forms a plugin
// really sends, in any spelling, do.
func TestRemoteURLTricks(t *testing.T) {
	m := remoteURLManager(t)
	for _, raw := range []string{
		"https://evil.test#@git.example.com/team/proj",
		"https://evil.test?@git.example.com/team/proj",
		`https://evil.test\@git.example.com/team/proj`,
		"https://evil.test/#@git.example.com/team/proj",
		"https://evil.test:443#@git.example.com/team/proj",
		"http://evil.test?x=@git.example.com/team/proj",
		"ssh://evil.test#@git.example.com/team/proj",
		"git://evil.test?@git.example.com/team/proj",
		"https://git.example.com.evil.test/team/proj",
		"https://git.example.com@evil.test/team/proj",
		"https://evil.test/git.example.com/team/proj",
		"https://evil.test%2F@git.example.com/team/proj%2F..%2F..%2Fx",
		"evil.test#@git.example.com:team/proj",
		"evil.test?@git.example.com:team/proj",
		`evil.test\@git.example.com:team/proj`,
		"evil.test#@git.example.com/team/proj",
		"a b@git.example.com:team/proj",
		"https://evil.test#@git.example.com/team/own",
		"evil.test?@git.example.com:team/own.git",
		"https://git.example.com/team/proj2",
		"https://git.example.com:8443/team/proj",
		"https://git.example.com/team/proj/../../other/proj",
	} {
		for _, name := range []string{"", "proj", "own"} {
			e, err := m.pick(Selection{Name: name, RemoteURL: raw})
			if err == nil {
				t.Errorf("%q (name %q) selected %s", raw, name, e.cfg.Name)
				continue
			}
			var na *NotAllowedError
			if !errors.As(err, &na) && !strings.Contains(err.Error(), "vcs remote URL") {
				t.Errorf("%q: %v, want not allowed or a bad URL", raw, err)
			}
		}
	}
	for raw, want := range map[string]string{
		"https://git.example.com/team/proj":               "proj",
		"https://git.example.com/team/proj.git/":          "proj",
		"HTTPS://Git.Example.COM:443/team/proj.git":       "proj",
		"https://user:tok@git.example.com/team/proj":      "proj",
		"https://git.example.com/team/proj?x=1#frag":      "proj",
		"https://git.example.com/team/%70roj":             "proj",
		"https://git.example.com/%74eam/proj%2Egit":       "proj",
		"http://git.example.com:80/team/proj":             "proj",
		"ssh://git@git.example.com/team/proj.git":         "proj",
		"ssh://git@git.example.com:22/team/proj":          "proj",
		"git+ssh://git@GIT.example.com/team/proj":         "proj",
		"git://git.example.com/team/proj":                 "proj",
		"git@git.example.com:team/proj.git":               "proj",
		"git@git.example.com:/team/proj.git/":             "proj",
		"git.example.com:team/proj":                       "proj",
		"git.example.com/team/proj":                       "proj",
		"first.last@git.example.com:team/%70roj.git":      "proj",
		"https://git.example.com/team/own":                "own",
		"git@git.example.com:team/own.git":                "own",
		"https://git.example.com/team/x/../own.git":       "own",
		"ssh://deploy+ci@git.example.com:22/team/own.git": "own",
	} {
		e, err := m.pick(Selection{RemoteURL: raw})
		if err != nil || e.cfg.Name != want {
			t.Errorf("%q: %v, want repository %s", raw, err, want)
		}
	}
}

// TestNormalizeEscapes: escapes of unreserved characters are decoded, the
// others written in upper case; a broken escape is an error.
func TestNormalizeEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"/a%2fb%2Fc": "/a%2Fb%2Fc", "/%41%7e%2D": "/A~-", "/My%20Project": "/My%20Project", "/é": "/é", "/%25": "/%25",
	} {
		if got, err := normalizeEscapes(in); err != nil || got != want {
			t.Errorf("normalizeEscapes(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"/a%", "/a%2", "/a%zz", "/%g0"} {
		if got, err := normalizeEscapes(in); err == nil {
			t.Errorf("normalizeEscapes(%q) = %q, want an error", in, got)
		}
	}
}

// FuzzRemoteURLHost: for a URL with a network scheme, the host the
// normaliser keeps is the host net/url parses, and the port too.
func FuzzRemoteURLHost(f *testing.F) {
	for _, s := range []string{
		"https://evil.test#@git.example.com/team/proj", "https://evil.test?@git.example.com/x", `https://evil.test\@h/x`,
		"https://u:p@H.example:8443/x", "ssh://git@h:22/x", "git://[::1]:9418/x", "https://h%2Eexample/x", "https://h:/x",
		"http://a@b@c/d", "https://h/a%2F..%2Fb", "https://h:0443/x", "https://[fe80::1%25en0]/x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		n, err := NormalizeURL(raw)
		scheme, _, ok := splitScheme(strings.TrimSpace(raw))
		if err != nil || !ok || scheme == "file" {
			return
		}
		u, perr := url.Parse(strings.TrimSpace(raw))
		if perr != nil {
			t.Fatalf("NormalizeURL(%q) = %q, but net/url fails: %v", raw, n, perr)
		}
		host := strings.ToLower(u.Hostname())
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		if port := strings.TrimLeft(u.Port(), "0"); port != "" && port != portOf(scheme) {
			host += ":" + port
		}
		if got, _, _ := strings.Cut(n, "/"); got != host {
			t.Fatalf("NormalizeURL(%q) = %q: host %q, net/url's %q", raw, n, got, host)
		}
	})
}

func portOf(scheme string) string {
	if p := defaultPorts[scheme]; p != 0 {
		return strconv.Itoa(p)
	}
	return ""
}
