package exclude_test

import (
	"testing"

	"github.com/agentgw/agentgw/guard/exclude"
)

// TestMatch: which paths each pattern excludes.
func TestMatch(t *testing.T) {
	for _, c := range []struct {
		pattern string
		yes     []string
		no      []string
	}{
		{".env", []string{".env", "app/.env", "/home/u/proj/.env", `C:\proj\.env`, "file:///home/u/.ENV"}, []string{".env.example", "env", "app/x.env", ""}},
		{"*.pem", []string{"server.pem", "/etc/ssl/private/KEY.PEM", "a/b/c.pem"}, []string{"pem", "server.pem.txt"}},
		{"secrets/**", []string{"secrets/db.yaml", "/w/app/secrets/a/b.txt", "secrets"}, []string{"mysecrets/db.yaml", "secret/db.yaml"}},
		{"secrets", []string{"secrets/db.yaml", "a/secrets/x"}, []string{"secrets.go"}},
		{"/config/*.key", []string{"config/tls.key", "/srv/app/config/tls.key"}, []string{"config/sub/tls.key", "config.key"}},
		{"**/id_rsa*", []string{"~/.ssh/id_rsa", "id_rsa.pub"}, []string{"rsa_id"}},
		{"./app/../.env", []string{"/x/.env"}, []string{"/x/app/.env.x"}},
	} {
		p, err := exclude.Compile([]string{c.pattern})
		if err != nil {
			t.Fatalf("%q: %v", c.pattern, err)
		}
		for _, name := range c.yes {
			if !p.Match(name) {
				t.Errorf("%q does not exclude %q", c.pattern, name)
			}
		}
		for _, name := range c.no {
			if p.Match(name) {
				t.Errorf("%q excludes %q", c.pattern, name)
			}
		}
	}
}

// TestCompileErrors: empty and malformed patterns are refused, naming
// them.
func TestCompileErrors(t *testing.T) {
	for pattern, want := range map[string]string{
		"":       `content exclusion pattern "": empty`,
		" / ":    `content exclusion pattern " / ": empty`,
		"a/[b/c": `content exclusion pattern "a/[b/c": segment "[b": syntax error in pattern`,
	} {
		_, err := exclude.Compile([]string{pattern})
		if err == nil || err.Error() != want {
			t.Errorf("Compile(%q) = %v, want %s", pattern, err, want)
		}
	}
}

// TestEmptyAndJoin: nil and empty policies exclude nothing; a join
// excludes what either does.
func TestEmptyAndJoin(t *testing.T) {
	var none *exclude.Policy
	if !none.Empty() || none.Match(".env") || !exclude.MustCompile().Empty() {
		t.Error("a nil or empty policy excludes something")
	}
	gw, ag := exclude.MustCompile(".env"), exclude.MustCompile("*.pem")
	ps := exclude.Policies{Gateway: gw, Agent: func(name string) *exclude.Policy {
		if name == "ops" {
			return ag
		}
		return nil
	}}
	if p := ps.For("ops"); !p.Match("a/.env") || !p.Match("k.pem") {
		t.Errorf("ops' policy %v misses a pattern", p.Patterns())
	}
	if p := ps.For("dev"); !p.Match(".env") || p.Match("k.pem") {
		t.Errorf("dev's policy %v is not the gateway's", p.Patterns())
	}
	if p := (exclude.Policies{}).For("x"); !p.Empty() {
		t.Error("no policies exclude something")
	}
}
