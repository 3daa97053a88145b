package main

import (
	"net"
	"strings"
	"testing"
)

func TestHealthcheck(t *testing.T) {
	base := startGateway(t, testConfig(t, ""), nil)
	addr := strings.TrimPrefix(base, "http://")
	_, port, _ := net.SplitHostPort(addr)
	tests := []struct {
		name string
		env  map[string]string
		args []string
		code int
	}{
		{"flag", nil, []string{"--addr", addr}, 0},
		{"env, wildcard host", map[string]string{"AGENTGW_ADDR": ":" + port}, nil, 0},
		{"nothing listening", nil, []string{"--addr", closedAddr(t), "--timeout", "2s"}, 1},
		{"bad address", nil, []string{"--addr", "nonsense"}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tc.env, append([]string{"healthcheck"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.code, stderr)
			}
		})
	}
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
