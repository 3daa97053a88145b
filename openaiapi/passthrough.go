package openaiapi

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/llm"
)

// PassthroughConfig configures NewPassthrough.
type PassthroughConfig struct {
	// BaseURL is the upstream model platform's OpenAI-compatible base URL;
	// /chat/completions is appended.
	BaseURL string
	// APIKey, when set, is sent as "Authorization: Bearer <APIKey>" and no
	// header of the client is (the key auth mode); empty forwards the
	// client's end-to-end headers (llm.ForwardHeaders), as agent requests
	// do in the forward mode.
	APIKey string
	// FirstByteTimeout bounds the wait for the upstream's response
	// headers; 0 means none.
	FirstByteTimeout time.Duration
	// Secrets are the other credentials the gateway knows: with APIKey and
	// the credentials of the client's request, they are redacted from the
	// error answers the upstream sends back (one that echoes a key).
	Secrets []string
	Logger  *slog.Logger
}

// NewPassthrough returns the handler that sends a chat completion request
// as it is to the upstream's /chat/completions and relays the answer as
// it comes (a stream flushed event by event).
func NewPassthrough(cfg PassthroughConfig) (http.Handler, error) {
	target, err := url.Parse(strings.TrimRight(cfg.BaseURL, "/") + "/chat/completions")
	if err != nil || target.Scheme == "" || target.Host == "" {
		return nil, fmt.Errorf("openai passthrough: %q is not an absolute URL", cfg.BaseURL)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ResponseHeaderTimeout = cfg.FirstByteTimeout
	return &httputil.ReverseProxy{
		Transport:     tr,
		FlushInterval: -1,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL = target
			pr.Out.Host = ""
			h := http.Header{}
			if cfg.APIKey != "" {
				h.Set("Authorization", "Bearer "+cfg.APIKey)
				if a := pr.In.Header.Get("Accept"); a != "" {
					h.Set("Accept", a)
				}
			} else {
				llm.ForwardHeaders(h, pr.In.Header)
			}
			h.Del(headerToken)
			h.Set("Content-Type", "application/json")
			pr.Out.Header = h
		},
		ModifyResponse: func(resp *http.Response) error {
			if resp.StatusCode < 400 {
				return nil
			}
			return redactBody(resp, llm.NewRedactor(append([]string{cfg.APIKey}, cfg.Secrets...), resp.Request.Header))
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			cfg.Logger.Warn("openai passthrough: the upstream failed", "err", err)
			WriteError(w, agent.Errorf(agent.CodeUpstreamUnavailable, "the upstream model platform could not be reached").Wrap(err))
		},
	}, nil
}

// maxErrorBody bounds the error answer of the upstream the passthrough
// reads to redact; the rest is dropped.
const maxErrorBody = 64 << 10

// redactBody replaces the body of an upstream's error answer with the
// same, the credentials r knows removed.
func redactBody(resp *http.Response, r *llm.Redactor) error {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_ = resp.Body.Close()
	if err != nil {
		return fmt.Errorf("reading the upstream's error answer: %w", err)
	}
	out := []byte(r.Redact(string(body)))
	resp.Body = io.NopCloser(bytes.NewReader(out))
	resp.ContentLength = int64(len(out))
	resp.Header.Set("Content-Length", strconv.Itoa(len(out)))
	resp.Header.Del("Content-Encoding")
	return nil
}
