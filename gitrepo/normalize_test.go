package gitrepo

import (
	"strings"
	"testing"
)

func TestNormalizeURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://github.com/Org/Repo.git", "github.com/Org/Repo"},
		{"HTTPS://GitHub.COM/org/repo/", "github.com/org/repo"},
		{"https://github.com/org/repo.git/", "github.com/org/repo"},
		{"http://git.example.com:8080/team/app.git", "git.example.com:8080/team/app"},
		{"https://github.com:443/org/repo", "github.com/org/repo"},
		{"http://github.com:443/org/repo", "github.com:443/org/repo"},
		{"ssh://git@github.com/org/repo.git", "github.com/org/repo"},
		{"ssh://git@git.example.com:2222/org/repo.git", "git.example.com:2222/org/repo"},
		{"ssh://git@github.com:22/org/repo", "github.com/org/repo"},
		{"git@github.com:org/repo.git", "github.com/org/repo"},
		{"git@GitHub.com:/org/repo.git/", "github.com/org/repo"},
		{"github.com:org/repo", "github.com/org/repo"},
		{"https://user:secret@github.com/org/repo", "github.com/org/repo"},
		{"https://x-access-token:tok@github.com/org/repo.git?ref=x#frag", "github.com/org/repo"},
		{"file:///srv/git/repo.git", "/srv/git/repo"},
		{"file://localhost/srv/git/repo/", "/srv/git/repo"},
		{"/srv/git/repo.git", "/srv/git/repo"},
		{"github.com/org/repo", "github.com/org/repo"},
		{"github.com:8443/org/repo", "github.com:8443/org/repo"},
		{"https://[::1]:8080/org/repo", "[::1]:8080/org/repo"},
		{"https://github.com/org/../evil//repo", "github.com/evil/repo"},
		{"https://github.com", "github.com"},
		{"  git@github.com:org/repo.git\n", "github.com/org/repo"},
		{"https://dev.azure.com/org/My%20Project/_git/repo", "dev.azure.com/org/My%20Project/_git/repo"},
	}
	for _, tt := range tests {
		got, err := NormalizeURL(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("NormalizeURL(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestNormalizeURLErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "empty URL"},
		{"   ", "empty URL"},
		{"ftp://host/x", `unsupported URL scheme "ftp"`},
		{"file://otherhost/x", "local path"},
		{"https://:443/x", "missing host"},
		{"https://host:99999/x", "invalid port"},
		{"https://host:http/x", "invalid port"},
		{"git@ho st:org/x", "invalid character"},
		{"https://user:secret@ho$t/x", "invalid character"},
		{"https://host/x\x00y", "control characters"},
		{"https://[::1/x", "missing ']' in host"},
		{"relative/../path", ""},
	}
	for _, tt := range tests {
		got, err := NormalizeURL(tt.in)
		if tt.want == "" {
			if err != nil {
				t.Errorf("NormalizeURL(%q) = %v; want no error", tt.in, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NormalizeURL(%q) = %q, %v; want an error with %q", tt.in, got, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("NormalizeURL(%q): the error %q repeats the credentials", tt.in, err)
		}
	}
}

func FuzzNormalizeURL(f *testing.F) {
	for _, s := range []string{
		"https://github.com/org/repo.git", "git@github.com:org/repo.git", "ssh://git@h:2222/x", "file:///srv/r.git",
		"/srv/r.git/", "h:8443/x", "https://[::1]:80/x", "https://u:p@h/x?q#f", "h:/abs", "h:", "x/.git.git/ ",
		"http://h:22/a://b", "[::1]", "a@b@c:d/e", "https://h/x /.git",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		n, err := NormalizeURL(raw)
		if err != nil {
			return
		}
		again, err := NormalizeURL(n)
		if err != nil || again != n {
			t.Fatalf("NormalizeURL(%q) = %q, but NormalizeURL(%q) = %q, %v", raw, n, n, again, err)
		}
	})
}

func BenchmarkNormalizeURL(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NormalizeURL("https://x-access-token:tok@GitHub.com/acme/app.git/"); err != nil {
			b.Fatal(err)
		}
	}
}
