package llm

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/sse"
)

// AuthMode selects how the upstream call is authenticated.
type AuthMode string

const (
	// AuthForward forwards the plugin's Authorization and other end-to-end
	// headers (see ForwardHeaders).
	AuthForward AuthMode = "forward"
	// AuthKey sends only the gateway's own headers plus a configured key.
	AuthKey AuthMode = "key"
)

// Config configures a Client.
type Config struct {
	// BaseURL is the platform's base URL; "/chat/completions" is appended
	// (a trailing slash is tolerated).
	BaseURL string
	// Auth is the authentication mode; "" means AuthForward.
	Auth AuthMode
	// APIKey is sent as "Authorization: Bearer <key>" in AuthKey mode. It
	// is never logged.
	APIKey string
	// FirstByteTimeout bounds the wait from sending the request until the
	// first upstream event (for Complete: until the answer); 0 means none.
	FirstByteTimeout time.Duration
	// IdleTimeout is the longest silence allowed between two upstream
	// events; 0 means none.
	IdleTimeout time.Duration
	// HTTPClient makes the calls; nil means a default tuned for streaming
	// (no compression, many idle connections per host, no overall timeout).
	HTTPClient *http.Client
	// HTTP2Cleartext makes the default client speak HTTP/2 without TLS
	// (prior knowledge) to an http:// upstream, multiplexing streams over
	// a few connections as HTTPS upstreams do through ALPN anyway.
	HTTP2Cleartext bool
	// Retry is how a call that failed before anything was relayed is
	// tried again; the zero value never retries.
	Retry RetryPolicy
	// FallbackModels are the models tried in order, once the retries of the
	// model asked for are spent, for a request that names none of its own
	// (ChatRequest.FallbackModels nil).
	FallbackModels []string
	// Secrets are further credentials the gateway knows of (its inbound
	// tokens, ...) to redact from upstream messages, beside APIKey and the
	// credential headers of each request, which are always redacted.
	Secrets []string
	// Logger receives debug logs and a warning for each retry and fallback
	// (never secrets); nil discards them.
	Logger *slog.Logger
	// Guard, when set, sees every request before it is sent: what must
	// never leave the gateway is taken out there (package guard). Nil
	// sends requests as they are.
	Guard Guard
}

// Guard rewrites a request before it leaves for the upstream: excluded
// content withheld, credentials redacted (package guard). Guard returns
// req itself when nothing changes, else a changed copy; it never modifies
// req, which its caller keeps (a tool loop sends its messages again each
// round). ctx is the call's.
type Guard interface {
	Guard(ctx context.Context, req *ChatRequest) *ChatRequest
}

// guard is req as the Guard lets it leave.
func (c *Client) guard(ctx context.Context, req *ChatRequest) *ChatRequest {
	if c.cfg.Guard == nil {
		return req
	}
	return c.cfg.Guard.Guard(ctx, req)
}

// Client calls the upstream model platform. It is safe for concurrent use.
type Client struct {
	cfg     Config
	baseURL string
	// url is the chat completions endpoint.
	url    string
	http   *http.Client
	log    *slog.Logger
	openai *openai.Client
	// readers recycles the buffers of the streams' SSE readers.
	readers sse.ReaderPool
	// cfgSecrets are the credentials of the configuration; secrets
	// redacts them.
	cfgSecrets []string
	secrets    *redactor
	// sleep waits between retries; jitter returns a random duration in
	// [0, d). Tests replace both.
	sleep  func(ctx context.Context, d time.Duration) error
	jitter func(d time.Duration) time.Duration
}

// New returns a Client for cfg. It fails when BaseURL is not an absolute
// http(s) URL or the auth settings are inconsistent.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("llm: parsing base URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("llm: base URL %q is not an absolute http(s) URL", cfg.BaseURL)
	}
	switch cfg.Auth {
	case "":
		cfg.Auth = AuthForward
	case AuthForward:
	case AuthKey:
		if cfg.APIKey == "" {
			return nil, fmt.Errorf("llm: auth mode %q needs an API key", AuthKey)
		}
	default:
		return nil, fmt.Errorf("llm: unknown auth mode %q (want %q or %q)", cfg.Auth, AuthForward, AuthKey)
	}
	c := &Client{
		cfg:     cfg,
		baseURL: strings.TrimRight(cfg.BaseURL, "/"),
		http:    cfg.HTTPClient,
		log:     cfg.Logger,
	}
	c.url = c.baseURL + "/chat/completions"
	if err := cfg.Retry.check(); err != nil {
		return nil, err
	}
	c.cfg.Retry = cfg.Retry.withDefaults()
	c.sleep, c.jitter = sleepContext, randomJitter
	c.cfgSecrets = append([]string{cfg.APIKey}, cfg.Secrets...)
	if pass, ok := u.User.Password(); ok {
		c.cfgSecrets = append(c.cfgSecrets, pass)
	}
	c.secrets = newRedactor(c.cfgSecrets)
	if c.http == nil {
		c.http = defaultHTTPClient(cfg.HTTP2Cleartext)
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	oc := openai.DefaultConfig("")
	oc.BaseURL = c.baseURL
	oc.HTTPClient = policyDoer{c}
	c.openai = openai.NewClientWithConfig(oc)
	return c, nil
}

// defaultHTTPClient is tuned for long-lived streams to one host: bodies are
// not compressed (a gzip layer would buffer tokens), many connections stay
// idle for reuse, and there is no overall timeout (the watchdog bounds
// silence instead). With h2c it speaks HTTP/2 to http:// URLs instead of
// HTTP/1.1.
//
// Idle connections are kept up to the Transport's IdleConnTimeout (90 s),
// and under concurrency the Transport dials spares that may wait in the pool
// unused. An upstream that closes a connection sooner, before any request
// on it (net/http bounds a new connection's first request by its
// ReadHeaderTimeout from the accept, golang/go#54784), fails the POST
// written on it: EOF or "connection reset by peer", retried as
// KindUnavailable; if it also sniffs for h2c as net/http does, a request
// arriving as its timeout expires gets a bare "400 Bad Request", a
// KindStatus that is not retried (bench/soak/README.md, F13).
func defaultHTTPClient(h2c bool) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableCompression = true
	t.MaxIdleConns = 512
	t.MaxIdleConnsPerHost = 256
	if h2c {
		t.Protocols = new(http.Protocols)
		t.Protocols.SetUnencryptedHTTP2(true)
		t.Protocols.SetHTTP2(true)
	}
	return &http.Client{Transport: t}
}

// BaseURL returns the configured base URL without a trailing slash.
func (c *Client) BaseURL() string { return c.baseURL }

// newRequest builds a POST of body to url with the header policy applied:
// the inbound headers in forward mode, the key in key mode, and always our
// Content-Type and Accept.
func (c *Client) newRequest(ctx context.Context, url string, body []byte, inbound http.Header, accept string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("llm: building request: %w", err)
	}
	if c.cfg.Auth == AuthKey {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	} else {
		ForwardHeaders(req.Header, inbound)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	observe.Inject(ctx, req.Header)
	return req, nil
}
