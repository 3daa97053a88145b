package tracing

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// The OTLP/HTTP exporter is the SDK's otlptrace exporter (it turns spans
// into their protobuf) with this package's client posting them. The
// SDK's own client, otlptracehttp, imports the collector's generated
// package, which links gRPC and grpc-gateway: 2.3 MB of a stripped
// binary that has 45 MB to fit in (bench/README.md, "Binary size"). The
// client does what that one did with the variables the gateway
// documents: the endpoint, headers, timeout, gzip, certificates, and
// retries of 429, 502, 503 and 504 (Retry-After, else backing off from 5s
// to 30s, for at most a minute).

// Defaults of the OTLP/HTTP exporter, as the SDK's.
const (
	defaultHTTPEndpoint = "http://localhost:4318/v1/traces"
	defaultHTTPTimeout  = 10 * time.Second
	maxResponseBody     = 4 << 20
)

// Retry schedule of a refused export (the SDK's).
const (
	retryInitial = 5 * time.Second
	retryMax     = 30 * time.Second
	retryElapsed = time.Minute
)

// httpClient posts spans to an OTLP/HTTP receiver; it implements
// otlptrace.Client.
type httpClient struct {
	url     string
	headers http.Header
	gzip    bool
	client  *http.Client
}

// newHTTPExporter builds the OTLP/HTTP exporter posting to u (nil: the
// default endpoint), configured by getenv's OTEL_EXPORTER_OTLP_(TRACES_)
// HEADERS, TIMEOUT, COMPRESSION, CERTIFICATE, CLIENT_CERTIFICATE and
// CLIENT_KEY.
func newHTTPExporter(ctx context.Context, u *url.URL, getenv func(string) string) (*otlptrace.Exporter, error) {
	c, err := newHTTPClient(u, getenv)
	if err != nil {
		return nil, err
	}
	exp, err := otlptrace.New(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("tracing: the OTLP/HTTP exporter: %w", err)
	}
	return exp, nil
}

// otlpEnv returns the traces' variable OTEL_EXPORTER_OTLP_TRACES_name if
// set, else OTEL_EXPORTER_OTLP_name, and the name of the one it read.
func otlpEnv(getenv func(string) string, name string) (value, variable string) {
	variable = "OTEL_EXPORTER_OTLP_TRACES_" + name
	if v := strings.TrimSpace(getenv(variable)); v != "" {
		return v, variable
	}
	variable = "OTEL_EXPORTER_OTLP_" + name
	return strings.TrimSpace(getenv(variable)), variable
}

func newHTTPClient(u *url.URL, getenv func(string) string) (*httpClient, error) {
	c := &httpClient{url: defaultHTTPEndpoint, headers: http.Header{}}
	if u != nil {
		c.url = u.String()
	}
	c.headers.Set("Content-Type", "application/x-protobuf")
	c.headers.Set("User-Agent", "OTel OTLP Exporter Go/"+otlptrace.Version())
	if v, name := otlpEnv(getenv, "HEADERS"); v != "" {
		for pair := range strings.SplitSeq(v, ",") {
			k, val, ok := strings.Cut(pair, "=")
			k = strings.TrimSpace(k)
			val, err := url.PathUnescape(val)
			if !ok || k == "" || err != nil {
				return nil, fmt.Errorf("tracing: %s: %q is not key=percent-encoded value", name, pair)
			}
			c.headers.Set(k, strings.TrimSpace(val))
		}
	}
	timeout := defaultHTTPTimeout
	if v, name := otlpEnv(getenv, "TIMEOUT"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms < 0 {
			return nil, fmt.Errorf("tracing: %s %q is not a number of milliseconds", name, v)
		}
		timeout = time.Duration(ms) * time.Millisecond
	}
	switch v, name := otlpEnv(getenv, "COMPRESSION"); v {
	case "", "none":
	case "gzip":
		c.gzip = true
	default:
		return nil, fmt.Errorf("tracing: %s: unsupported compression %q (gzip or none)", name, v)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	cfg, err := tlsFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	if cfg != nil {
		if strings.HasPrefix(c.url, "http:") {
			return nil, errors.New("tracing: a certificate is set for the plaintext OTLP endpoint " + c.url)
		}
		tr.TLSClientConfig = cfg
	}
	c.client = &http.Client{Transport: tr, Timeout: timeout}
	return c, nil
}

// tlsFromEnv reads the CA and client certificates the variables name;
// nil when none is.
func tlsFromEnv(getenv func(string) string) (*tls.Config, error) {
	ca, caVar := otlpEnv(getenv, "CERTIFICATE")
	cert, certVar := otlpEnv(getenv, "CLIENT_CERTIFICATE")
	key, keyVar := otlpEnv(getenv, "CLIENT_KEY")
	if ca == "" && cert == "" && key == "" {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("tracing: %s: %w", caVar, err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tracing: %s: no PEM certificate in %s", caVar, ca)
		}
	}
	if cert != "" || key != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("tracing: %s and %s: %w", certVar, keyVar, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

// Start implements otlptrace.Client.
func (c *httpClient) Start(context.Context) error { return nil }

// Stop implements otlptrace.Client.
func (c *httpClient) Stop(context.Context) error {
	c.client.CloseIdleConnections()
	return nil
}

// UploadTraces implements otlptrace.Client: it posts an
// ExportTraceServiceRequest (field 1: the resource spans), retrying what
// the receiver asks to be retried until ctx ends or a minute has passed.
func (c *httpClient) UploadTraces(ctx context.Context, spans []*tracepb.ResourceSpans) error {
	var body []byte
	for _, rs := range spans {
		b, err := proto.Marshal(rs)
		if err != nil {
			return fmt.Errorf("encoding spans: %w", err)
		}
		body = protowire.AppendTag(body, 1, protowire.BytesType)
		body = protowire.AppendBytes(body, b)
	}
	if c.gzip {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(body)
		if err := zw.Close(); err != nil {
			return fmt.Errorf("compressing spans: %w", err)
		}
		body = buf.Bytes()
	}
	deadline := time.Now().Add(retryElapsed)
	backoff := retryInitial
	for {
		retry, wait, err := c.post(ctx, body)
		if !retry {
			return err
		}
		if wait < 0 {
			wait = backoff
			backoff = min(2*backoff, retryMax)
		}
		if time.Now().Add(wait).After(deadline) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
	}
}

// post sends body once, and says whether to retry and after how long
// (the receiver's Retry-After; < 0: back off).
func (c *httpClient) post(ctx context.Context, body []byte) (retry bool, wait time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return false, 0, fmt.Errorf("posting spans: %w", err)
	}
	req.Header = c.headers.Clone()
	if c.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return false, 0, fmt.Errorf("posting spans: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBody))
	if err != nil {
		return false, 0, fmt.Errorf("reading the receiver's answer: %w", err)
	}
	switch code := resp.StatusCode; {
	case code >= 200 && code <= 299:
		if resp.Header.Get("Content-Type") == "application/x-protobuf" {
			return false, 0, partialSuccess(data)
		}
		return false, 0, nil
	case code == http.StatusTooManyRequests || code == http.StatusBadGateway || code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout:
		return true, retryAfter(resp.Header.Get("Retry-After")), fmt.Errorf("posting spans to %s: %s: %s", c.url, resp.Status, bytes.TrimSpace(data))
	default:
		return false, 0, fmt.Errorf("posting spans to %s: %s: %s", c.url, resp.Status, bytes.TrimSpace(data))
	}
}

// retryAfter is a Retry-After header's wait (seconds or a date), -1 when
// absent or unreadable.
func retryAfter(v string) time.Duration {
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return -1
}

// partialSuccess reads an ExportTraceServiceResponse (field 1, partial
// success: 1 rejected spans, 2 the error message) and returns an error
// when the receiver rejected spans or said why.
func partialSuccess(b []byte) error {
	var rejected uint64
	var msg string
	var inner error
	err := eachField(b, func(num protowire.Number, v []byte, _ uint64) {
		if num == 1 {
			inner = eachField(v, func(num protowire.Number, v []byte, x uint64) {
				switch num {
				case 1:
					rejected = x
				case 2:
					msg = string(v)
				}
			})
		}
	})
	if err = errors.Join(err, inner); err != nil {
		return fmt.Errorf("decoding the receiver's answer: %w", err)
	}
	if rejected != 0 || msg != "" {
		return fmt.Errorf("the receiver rejected %d spans: %s", rejected, msg)
	}
	return nil
}

// eachField calls fn with each field of the protobuf message b: its
// number and its value, v for a length-delimited field, x for a varint
// (other fields are skipped).
func eachField(b []byte, fn func(num protowire.Number, v []byte, x uint64)) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		switch typ {
		case protowire.BytesType:
			v, _ := protowire.ConsumeBytes(b)
			fn(num, v, 0)
		case protowire.VarintType:
			x, _ := protowire.ConsumeVarint(b)
			fn(num, nil, x)
		}
		b = b[n:]
	}
	return nil
}
