package remote_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/remote"
)

func TestAgentURL(t *testing.T) {
	tests := []struct{ endpoint, agent, want string }{
		{"http://gw2:8080", "security", "http://gw2:8080/agents/security"},
		{"http://gw2:8080/", "security", "http://gw2:8080/agents/security"},
		{"https://gw2", "a b/c", "https://gw2/agents/a%20b%2Fc"},
		{"http://gw2:8080?tenant=t1", "x", "http://gw2:8080/agents/x?tenant=t1"},
		{"http://gw2:8080", "", "http://gw2:8080/agent"},
		{"http://localhost:18080/", "", "http://localhost:18080/agent"},
		{"http://svc/hook", "security", "http://svc/hook"},
		{"http://gw2/prefix/agents/security", "other", "http://gw2/prefix/agents/security"},
		{"http://user:pw@svc/x?k=v", "a", "http://user:pw@svc/x?k=v"},
	}
	for _, tt := range tests {
		got, err := remote.AgentURL(tt.endpoint, tt.agent)
		if err != nil || got != tt.want {
			t.Errorf("AgentURL(%q, %q) = %q, %v; want %q", tt.endpoint, tt.agent, got, err, tt.want)
		}
	}
}

func TestHandoffURL(t *testing.T) {
	tests := []struct{ endpoint, want string }{
		{"http://gw2:8080", "http://gw2:8080/handoffs"},
		{"http://gw2:8080/", "http://gw2:8080/handoffs"},
		{"http://gw2/prefix", "http://gw2/prefix/handoffs"},
		{"http://gw2/prefix/handoffs", "http://gw2/prefix/handoffs"},
		{"http://gw2/handoffs/", "http://gw2/handoffs/"},
		{"http://gw2?k=v", "http://gw2/handoffs?k=v"},
	}
	for _, tt := range tests {
		got, err := remote.HandoffURL(tt.endpoint)
		if err != nil || got != tt.want {
			t.Errorf("HandoffURL(%q) = %q, %v; want %q", tt.endpoint, got, err, tt.want)
		}
	}
}

func TestCheckEndpoint(t *testing.T) {
	for _, ok := range []string{"http://h", "https://h:1/p?q=1", "http://[::1]:80/"} {
		if err := remote.CheckEndpoint(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "h:80", "//h/p", "ftp://h", "http:///p", "http://h/#f", "http://u:secret-pw@h/#f",
		"http://u:secret-pw@[::1/", "http://h/%zz?key=secret-pw"} {
		err := remote.CheckEndpoint(bad)
		if err == nil {
			t.Errorf("%q accepted", bad)
		} else if strings.Contains(err.Error(), "secret-pw") {
			t.Errorf("%q: the error repeats a credential: %v", bad, err)
		}
	}
}

func TestRedacted(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://h/p", "http://h/p"},
		{"http://user:pw@h/p", "http://h/p"},
		{"http://h/p?key=abc&b=1&b=2", "http://h/p?b=REDACTED&b=REDACTED&key=REDACTED"},
		{"https://h?token", "https://h?token=REDACTED"},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := remote.Redacted(u); got != tt.want {
			t.Errorf("Redacted(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
