package openaiapi

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"strconv"
	"strings"

	"github.com/agentgw/agentgw/llm"
)

// redactTransport is the passthrough's transport: what the upstream sends
// back reaches the proxy with every credential the gateway knows removed
// (its secrets and the credentials of the request sent, in the forms
// llm.Redactor knows): from the headers of the answer and of its 1xx
// answers, from the body, decoded first (gzip, x-gzip, deflate; an
// encoding it cannot decode is an unreadableError, and nothing of that body
// is relayed), and from the trailers.
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
	if err := decodeBody(resp); err != nil {
		_ = resp.Body.Close()
		return nil, err
	}
	if resp.StatusCode >= 400 || (resp.ContentLength >= 0 && resp.ContentLength <= maxErrorBody) {
		return resp, redactWhole(resp, red)
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

// unreadableError is an answer whose Content-Encoding the passthrough
// cannot decode, so cannot redact.
type unreadableError struct{ encoding string }

func (e *unreadableError) Error() string {
	return fmt.Sprintf("the upstream's answer has the Content-Encoding %q, which the gateway cannot decode", e.encoding)
}

// decodeBody replaces an encoded body with the decoded one and drops its
// Content-Encoding and length. The transport decodes the gzip it asked for
// itself; this decodes what an upstream sends unasked.
func decodeBody(resp *http.Response) error {
	ce := strings.Join(resp.Header.Values("Content-Encoding"), ",")
	if strings.TrimSpace(ce) == "" {
		return nil
	}
	codings := strings.Split(ce, ",")
	var body io.Reader = resp.Body
	// The last coding applied is listed last: it is undone first.
	for i := len(codings) - 1; i >= 0; i-- {
		var err error
		switch c := strings.ToLower(strings.TrimSpace(codings[i])); c {
		case "identity", "":
		case "gzip", "x-gzip":
			body, err = gzip.NewReader(body)
		case "deflate":
			body, err = inflate(body)
		default:
			return &unreadableError{encoding: codings[i]}
		}
		if err != nil {
			return fmt.Errorf("decoding the upstream's %s answer: %w", codings[i], err)
		}
	}
	resp.Body = readCloser{Reader: body, Closer: resp.Body}
	resp.Header.Del("Content-Encoding")
	resp.Header.Del("Content-Length")
	resp.ContentLength = -1
	resp.Uncompressed = true
	return nil
}

// inflate decodes a deflate body: zlib as the standard says, or the raw
// deflate some servers send.
func inflate(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	h, err := br.Peek(2)
	if err != nil && len(h) < 2 {
		return nil, fmt.Errorf("reading the deflate header: %w", err)
	}
	if h[0]&0x0f == 8 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0 {
		return zlib.NewReader(br)
	}
	return flate.NewReader(br), nil
}

// readCloser reads from Reader and closes Closer.
type readCloser struct {
	io.Reader
	io.Closer
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
