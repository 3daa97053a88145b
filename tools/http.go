package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/observe"
)

// maxRedirects bounds the redirects an http tool follows.
const maxRedirects = 5

// httpRuntime POSTs the parameters as JSON to an allow-listed URL.
type httpRuntime struct {
	m      *Manager
	client *http.Client
}

// newHTTPRuntime returns the runtime with a client that follows redirects
// only inside the allow-list.
func newHTTPRuntime(m *Manager) *httpRuntime {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	client := &http.Client{Transport: tr}
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		if !m.httpAllowed(req.URL) {
			return errorf(toolspec.CodeNotAllowed, "redirect to %s: not in the HTTP allow-list", req.URL.Redacted())
		}
		return nil
	}
	return &httpRuntime{m: m, client: client}
}

// Name implements Runtime.
func (*httpRuntime) Name() string { return "http" }

// Check requires an entry inside the allow-list.
func (r *httpRuntime) Check(t *Tool) ([]string, error) {
	u, err := url.Parse(t.Entry)
	if err != nil {
		return nil, fmt.Errorf("entry: %w", err)
	}
	if !r.m.httpAllowed(u) {
		return nil, fmt.Errorf("entry %s: not in the HTTP allow-list (httpAllow)", u.Redacted())
	}
	return nil, nil
}

// Run implements Runtime.
func (r *httpRuntime) Run(ctx context.Context, t *Tool, call Call) (any, error) {
	u, err := url.Parse(t.Entry)
	if err != nil || !r.m.httpAllowed(u) {
		return nil, errorf(toolspec.CodeNotAllowed, "entry %s: not in the HTTP allow-list", t.Entry)
	}
	body, err := json.Marshal(call.Parameters)
	if err != nil {
		return nil, errorf(toolspec.CodeInvalidParameters, "encoding parameters: %v", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.Entry, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("building the request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/plain;q=0.9, */*;q=0.1")
	observe.Inject(ctx, req.Header)
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, transportError(ctx, u, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, cut, err := readCapped(resp.Body, t.MaxOutputBytes)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, cutText(b[:min(len(b), stderrKeep)], cut || len(b) > stderrKeep, stderrKeep))
	}
	return jsonResult(b, cut, t.MaxOutputBytes)
}

// transportError keeps a coded error (a refused redirect) and reports
// other failures as UNAVAILABLE, unless ctx ended.
func transportError(ctx context.Context, u *url.URL, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	var re *toolspec.ResultError
	if errors.As(err, &re) {
		return re
	}
	return errorf(toolspec.CodeUnavailable, "POST %s: %v", u.Redacted(), err)
}
