package openaiapi

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"strconv"

	"github.com/agentgw/agentgw/llm"
)

// redactTransport is the passthrough's transport: what the upstream sends
// back reaches the proxy with every credential the gateway knows removed
// (its secrets and the credentials of the request sent, in the forms
// llm.Redactor knows): from the headers of the answer and of its 1xx
// answers, from the body, decoded first (llm.DecodeBody: an encoding it
// cannot decode is an *llm.EncodingError, and nothing of that body is
// relayed), and from the trailers.
type redactTransport struct {
	base    http.RoundTripper
	secrets func() []string
}

// maxErrorBody bounds the error answer of the upstream the passthrough
// reads to redact, and the answer of a known length read whole to keep its
// Content-Length; the rest of an error answer is dropped.
const maxErrorBody = 64 << 10

// RoundTrip implements http.RoundTripper.
func (t *redactTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	red := llm.NewRedactor(t.secrets(), req.Header)
	// A 1xx answer's headers are relayed by the proxy's own trace hook,
	// which runs after this one on the same map.
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		Got1xxResponse: func(_ int, h textproto.MIMEHeader) error {
			redactHeader(http.Header(h), red)
			return nil
		},
	}))
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	redactHeader(resp.Header, red)
	redactHeader(resp.Trailer, red)
	if err := llm.DecodeBody(resp); err != nil {
		_ = resp.Body.Close()
		return nil, err
	}
	if resp.StatusCode >= 400 || (resp.ContentLength >= 0 && resp.ContentLength <= maxErrorBody) {
		if err := redactWhole(resp, red); err != nil {
			return nil, err
		}
		return resp, nil
	}
	resp.Body = &redactedBody{r: red.NewReader(resp.Body), body: resp.Body, resp: resp, red: red}
	resp.ContentLength = -1
	resp.Header.Del("Content-Length")
	return resp, nil
}

// redactHeader redacts the values of h in place and drops a field whose
// name holds a credential.
func redactHeader(h http.Header, red *llm.Redactor) {
	for name, values := range h {
		if red.Redact(name) != name {
			delete(h, name)
			continue
		}
		for i, v := range values {
			values[i] = red.Redact(v)
		}
	}
}

// redactWhole replaces the body with the same read whole (at most
// maxErrorBody bytes), the credentials red knows removed, and sets its
// Content-Length.
func redactWhole(resp *http.Response, red *llm.Redactor) error {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_ = resp.Body.Close()
	if err != nil {
		return fmt.Errorf("reading the upstream's answer: %w", err)
	}
	redactHeader(resp.Trailer, red)
	out := []byte(red.Redact(string(body)))
	resp.Body = io.NopCloser(bytes.NewReader(out))
	resp.ContentLength = int64(len(out))
	resp.Header.Set("Content-Length", strconv.Itoa(len(out)))
	return nil
}

// redactedBody is a body relayed as it arrives, redacted by r; at its end
// the trailers, which arrive then, are redacted too.
type redactedBody struct {
	r    io.Reader
	body io.Closer
	resp *http.Response
	red  *llm.Redactor
}

func (b *redactedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil {
		redactHeader(b.resp.Trailer, b.red)
	}
	return n, err
}

func (b *redactedBody) Close() error { return b.body.Close() }
