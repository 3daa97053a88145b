package main

import (
	"log/slog"
	"net"

	"github.com/agentgw/agentgw/ui"
)

// defaultPort is the gateway's port when no address is named.
const defaultPort = "18080"

// listenAddr is the address the gateway listens on: named, when the
// operator named one (addr, AGENTGW_ADDR or --addr); else all interfaces
// when inbound auth is configured (authOn), and loopback only when not, so
// that a gateway nobody configured is not open to the network.
func listenAddr(named string, authOn bool) string {
	switch {
	case named != "":
		return named
	case authOn:
		return ":" + defaultPort
	}
	return net.JoinHostPort("127.0.0.1", defaultPort)
}

// inboundTokens are the inbound auth tokens and the admin tokens, from
// the environment variables the config names; inbound auth is on when
// either list has one.
func inboundTokens(cfg *Config, getenv func(string) string) (auth, admin []string) {
	return splitTokens(getenv(cfg.Server.AuthTokensEnv)), splitTokens(getenv(cfg.Server.AdminTokensEnv))
}

// beyondLoopback reports whether a listener at addr is reachable from
// other hosts: any address but a loopback one (0.0.0.0 and :: are every
// interface).
func beyondLoopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return !ok || !tcp.IP.IsLoopback()
}

// warnExposed logs a WARN when the gateway listens at addr beyond loopback
// without inbound auth: then any host that reaches it runs its agents, and
// only the object APIs and /metrics refuse peers that are not on loopback.
func warnExposed(log *slog.Logger, addr net.Addr, authOn bool) {
	if authOn || !beyondLoopback(addr) {
		return
	}
	log.Warn("agentgw listens beyond loopback without inbound auth: any host that reaches it may run its agents; set server.authTokensEnv, or listen on 127.0.0.1",
		"addr", addr.String())
}

// playgroundURL is where a browser on this host opens the playground of a
// gateway listening at addr: that address, or loopback when it is every
// interface (0.0.0.0, ::).
func playgroundURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String() + ui.Path + "/"
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + ui.Path + "/"
}

// logPlayground says at INFO where the playground is, so that the first
// run's log shows what to open.
func logPlayground(log *slog.Logger, addr net.Addr) {
	u := playgroundURL(addr)
	log.Info("playground at "+u, "url", u)
}
