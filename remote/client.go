package remote

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/sse"
)

// Default limits of a Config left at zero.
const (
	// DefaultMaxFrameSize bounds one SSE frame of a remote's stream: its
	// field names, data lines and line breaks, with the comments before it.
	DefaultMaxFrameSize = 4 << 20
	// DefaultMaxResponseSize bounds the body of a hand-off answer; an
	// error body is read up to maxErrorBody.
	DefaultMaxResponseSize = 1 << 20
)

// maxErrorBody is the most of a failed response's body read for its
// message.
const maxErrorBody = 64 << 10

// Config configures a Client.
type Config struct {
	// HTTPClient makes the calls; nil means a default tuned for streams: no
	// compression (a gzip layer would hold frames back), no redirects (a
	// body and headers are not re-sent to another URL), no overall timeout
	// (the timeouts below bound silence instead).
	HTTPClient *http.Client
	// FirstByteTimeout bounds the wait from sending a request until the
	// remote's response headers arrive; 0 means none.
	FirstByteTimeout time.Duration
	// IdleTimeout is the longest silence allowed while reading a response
	// body: no byte at all, a keep-alive comment (": ping") counting as
	// activity, so a remote that keeps its stream alive during a slow step
	// is not cut off; 0 means none. An agentgw pings after 15 s of silence
	// by default: an idle timeout should be longer.
	IdleTimeout time.Duration
	// MaxFrameSize bounds one frame of a remote's stream, in bytes; 0
	// means DefaultMaxFrameSize. At most sse.MaxLineSize.
	MaxFrameSize int
	// MaxResponseSize bounds the body of a hand-off answer (PostHandoff);
	// 0 means DefaultMaxResponseSize.
	MaxResponseSize int
	// ForwardAuthorization forwards the plugin's Authorization header to
	// remotes. It is off by default: the plugin's Authorization may be
	// meant for the model platform (the seed-003 sample server reuses it
	// to call the platform), not for any service an agent names.
	ForwardAuthorization bool
	// EndpointHeader, when set, returns headers to send to a remote (its
	// own credentials, such as the X-Agentgw-Token of another agentgw),
	// set after the header policy and never filtered by it. Their values
	// are redacted from errors like every credential. endpoint is the
	// remote's service.endpoint as given to Forward or PostHandoff.
	EndpointHeader func(endpoint string) http.Header
	// Secrets are further credentials to redact from errors.
	Secrets []string
	// Logger receives a debug line per call (never a secret); nil
	// discards them.
	Logger *slog.Logger
}

// Client forwards agent requests and hand-off messages to remote agent
// services. It is safe for concurrent use.
type Client struct {
	cfg  Config
	http *http.Client
	log  *slog.Logger
	// readers recycles the buffers of the streams' SSE readers.
	readers sse.ReaderPool
}

// New returns a Client for cfg. It fails on negative or too large limits.
func New(cfg Config) (*Client, error) {
	switch {
	case cfg.FirstByteTimeout < 0 || cfg.IdleTimeout < 0:
		return nil, fmt.Errorf("remote: timeouts must not be negative (first byte %s, idle %s)", cfg.FirstByteTimeout, cfg.IdleTimeout)
	case cfg.MaxFrameSize < 0 || cfg.MaxFrameSize > sse.MaxLineSize:
		return nil, fmt.Errorf("remote: max frame size %d is not within 0..%d", cfg.MaxFrameSize, sse.MaxLineSize)
	case cfg.MaxResponseSize < 0:
		return nil, fmt.Errorf("remote: max response size %d is negative", cfg.MaxResponseSize)
	}
	if cfg.MaxFrameSize == 0 {
		cfg.MaxFrameSize = DefaultMaxFrameSize
	}
	if cfg.MaxResponseSize == 0 {
		cfg.MaxResponseSize = DefaultMaxResponseSize
	}
	c := &Client{cfg: cfg, http: cfg.HTTPClient, log: cfg.Logger}
	if c.http == nil {
		c.http = defaultHTTPClient()
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	return c, nil
}

// defaultHTTPClient is tuned for long-lived streams: bodies are not
// compressed, redirects are not followed, there is no overall timeout.
func defaultHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableCompression = true
	t.MaxIdleConnsPerHost = 64
	return &http.Client{
		Transport:     t,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Header names the policy handles itself.
const (
	// HeaderToken is the gateway's own inbound token header, never
	// forwarded (server.HeaderToken; server is not imported here).
	HeaderToken = "X-Agentgw-Token"
	headerAuth  = "Authorization"
)

// ForwardHeaders returns the headers of the plugin's request in that may
// go to a remote: the end-to-end ones (llm.ForwardHeaders: never Host,
// Content-Length, Content-Encoding, Accept-Encoding, Expect or hop-by-hop
// headers), without the gateway's X-Agentgw-Token, Cookie (the plugin's
// cookies are for this gateway's host) and, unless forwardAuthorization,
// Authorization.
func ForwardHeaders(in http.Header, forwardAuthorization bool) http.Header {
	out := make(http.Header, len(in))
	llm.ForwardHeaders(out, in)
	out.Del(HeaderToken)
	out.Del("Cookie")
	if !forwardAuthorization {
		out.Del(headerAuth)
	}
	return out
}

// newRequest builds a POST of body to target with the header policy
// applied, the endpoint's own headers, and our Content-Type and Accept.
func (c *Client) newRequest(ctx context.Context, target, endpoint string, body []byte, in http.Header, accept string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("building the remote request: %w", err)
	}
	req.Header = ForwardHeaders(in, c.cfg.ForwardAuthorization)
	for k, vs := range c.endpointHeader(endpoint) {
		req.Header[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	observe.Inject(ctx, req.Header)
	return req, nil
}

// endpointHeader is the endpoint's own headers, nil when none are set.
func (c *Client) endpointHeader(endpoint string) http.Header {
	if c.cfg.EndpointHeader == nil {
		return nil
	}
	return c.cfg.EndpointHeader(endpoint)
}
