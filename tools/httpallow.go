package tools

import (
	"log/slog"
	"net/url"

	"github.com/agentgw/agentgw/internal/urlallow"
)

// parseAllow parses the allow-list with the gateway's one URL matcher,
// logging and skipping bad entries.
func (m *Manager) parseAllow(list []string) urlallow.List {
	l, err := urlallow.Parse(list)
	if err != nil {
		m.log.Warn("ignoring HTTP allow-list entries", slog.Any("err", err))
	}
	return l
}

// httpAllowed reports whether u lies under an allow-list entry (see
// package urlallow: same scheme, host and port, a path equal to the
// entry's or below it, no userinfo, no dot segments).
func (m *Manager) httpAllowed(u *url.URL) bool {
	return m.allow.AllowsURL(u)
}
