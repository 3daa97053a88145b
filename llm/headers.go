package llm

import (
	"net/http"
	"net/textproto"
	"slices"
	"strings"
)

// ForwardHeaders copies the end-to-end headers of src (Authorization,
// User-Agent, X-*, ...) into dst, replacing what dst had under those names.
// It never copies Host, Content-Length, Content-Encoding (the body is ours,
// not the plugin's), Accept-Encoding, Expect, the hop-by-hop headers
// (Connection, Keep-Alive, Proxy-*, TE, Trailer, Transfer-Encoding,
// Upgrade) or the headers named in src's Connection header.
func ForwardHeaders(dst, src http.Header) {
	named := connectionTokens(src)
	for name, values := range src {
		key := textproto.CanonicalMIMEHeaderKey(name)
		if !forwardable(key) || slices.ContainsFunc(named, func(t string) bool { return strings.EqualFold(t, key) }) {
			continue
		}
		dst[key] = append([]string(nil), values...)
	}
}

// forwardable reports whether a canonical header name may be forwarded.
func forwardable(key string) bool {
	switch key {
	case "Host", "Content-Length", "Content-Encoding", "Accept-Encoding", "Expect",
		"Connection", "Keep-Alive", "Te", "Trailer", "Transfer-Encoding", "Upgrade":
		return false
	}
	return !strings.HasPrefix(key, "Proxy-")
}

// connectionTokens returns the header names listed in the Connection header
// of h (in any spelling of its name).
func connectionTokens(h http.Header) []string {
	var tokens []string
	for name, values := range h {
		if !strings.EqualFold(name, "Connection") {
			continue
		}
		for _, v := range values {
			for token := range strings.SplitSeq(v, ",") {
				if token = strings.TrimSpace(token); token != "" {
					tokens = append(tokens, token)
				}
			}
		}
	}
	return tokens
}
