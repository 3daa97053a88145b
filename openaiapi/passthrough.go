package openaiapi

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/runes"
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
	// the credentials of the request sent upstream, they are redacted from
	// everything the upstream sends back (headers, bodies, stream events,
	// trailers) before it reaches the client or a log line.
	Secrets []string
	// MoreSecrets, when set, returns further credentials to redact, read
	// for each answer (the remote agents' tokens, which change with the
	// agents loaded).
	MoreSecrets func() []string
	Logger      *slog.Logger
}

// NewPassthrough returns the handler that sends a chat completion request
// as it is to the upstream's /chat/completions and relays the answer as
// it comes (a stream flushed event by event), every credential the
// gateway knows removed from it (see redactTransport).
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
	rt := &redactTransport{base: tr, secrets: func() []string {
		s := append([]string{cfg.APIKey}, cfg.Secrets...)
		if cfg.MoreSecrets != nil {
			s = append(s, cfg.MoreSecrets()...)
		}
		return s
	}}
	return &httputil.ReverseProxy{
		Transport:     rt,
		FlushInterval: -1,
		ErrorLog:      slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelWarn),
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
			// No Accept-Encoding: the transport asks for gzip and decodes
			// it, so that the body can be redacted.
			h.Del("Accept-Encoding")
			h.Set("Content-Type", "application/json")
			pr.Out.Header = h
		},
		ModifyResponse: func(resp *http.Response) error {
			if res, ok := resp.Request.Context().Value(passKey{}).(*passResult); ok {
				res.status = resp.StatusCode
				if resp.StatusCode >= 400 {
					res.code = apierr.CodeUpstreamError
				}
			}
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			res, _ := r.Context().Value(passKey{}).(*passResult)
			// The error may quote the upstream (an encoding it named).
			red := llm.NewRedactor(rt.secrets(), r.Header)
			msg := red.Redact(err.Error())
			var ue *llm.EncodingError
			if errors.As(err, &ue) {
				cfg.Logger.Warn("openai passthrough: the upstream's answer cannot be read", "err", msg)
				if res != nil {
					res.code = apierr.CodeUpstreamError
				}
				answerError(w, r, apierr.Errorf(apierr.CodeUpstreamError, "the upstream model platform answered in an encoding the gateway cannot read (%q)",
					runes.Clip(red.Redact(ue.Encoding), 64)))
				return
			}
			cfg.Logger.Warn("openai passthrough: the upstream failed", "err", msg)
			if res != nil {
				res.code = apierr.CodeUpstreamUnavailable
			}
			answerError(w, r, apierr.Errorf(apierr.CodeUpstreamUnavailable, "the upstream model platform could not be reached"))
		},
	}, nil
}

// passResult is how one passed-through call went, as the proxy's hooks saw
// it: the upstream's status (0 when none came) and the code of a failed
// call.
type passResult struct {
	status int
	code   string
}

// passKey is the context key of a call's *passResult.
type passKey struct{}
