package tracing

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/pem"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// posted is what an OTLP/HTTP receiver saw: each request's headers and
// body as they crossed the wire.
type posted struct {
	mu      sync.Mutex
	headers []http.Header
	bodies  [][]byte
}

func (p *posted) add(r *http.Request) []byte {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.headers = append(p.headers, r.Header.Clone())
	p.bodies = append(p.bodies, body)
	return body
}

// TestOTLPHTTPWire checks the bytes an export puts on the wire with the
// SDK's variables set: the headers of OTEL_EXPORTER_OTLP_TRACES_HEADERS
// (which replace OTEL_EXPORTER_OTLP_HEADERS's, as the SDK's did), gzip with OTEL_EXPORTER_OTLP_COMPRESSION,
// and a body that is exactly the protobuf of an ExportTraceServiceRequest.
func TestOTLPHTTPWire(t *testing.T) {
	var got posted
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got.add(r) }))
	defer srv.Close()
	for k, v := range map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT":       srv.URL,
		"OTEL_EXPORTER_OTLP_HEADERS":        "x-team=a%20b, Authorization=Bearer base",
		"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "authorization=Bearer%20t0k",
		"OTEL_EXPORTER_OTLP_COMPRESSION":    "gzip",
		"OTEL_EXPORTER_OTLP_TIMEOUT":        "2500",
	} {
		t.Setenv(k, v)
	}
	o, shutdown, err := FromEnv(context.Background(), os.Getenv, "v1", nil)
	if err != nil {
		t.Fatal(err)
	}
	oneRequest(t, o, shutdown)
	if len(got.bodies) != 1 {
		t.Fatalf("%d exports, want 1", len(got.bodies))
	}
	h := got.headers[0]
	for k, want := range map[string]string{
		"Content-Type": "application/x-protobuf", "Content-Encoding": "gzip",
		"X-Team": "", "Authorization": "Bearer t0k",
	} {
		if h.Get(k) != want {
			t.Errorf("header %s: %q, want %q", k, h.Get(k), want)
		}
	}
	if ua := h.Get("User-Agent"); !strings.HasPrefix(ua, "OTel OTLP Exporter Go/") {
		t.Errorf("User-Agent %q", ua)
	}
	zr, err := gzip.NewReader(bytes.NewReader(got.bodies[0]))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var req collectortrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	if n := len(req.ResourceSpans); n != 1 || len(req.ResourceSpans[0].ScopeSpans) != 1 || len(req.ResourceSpans[0].ScopeSpans[0].Spans) != 1 {
		t.Fatalf("export %v, want one span", &req)
	}
	again, err := proto.MarshalOptions{Deterministic: true}.Marshal(&req)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, again) {
		t.Errorf("the body is not the protobuf of its ExportTraceServiceRequest:\n%x\n%x", body, again)
	}
}

// TestOTLPHTTPRetry checks that a 503 with Retry-After is retried and
// that a refused export's partial success is logged.
func TestOTLPHTTPRetry(t *testing.T) {
	for _, c := range []struct {
		name    string
		answers []func(w http.ResponseWriter)
		exports int
		warn    string
	}{
		{name: "503 then ok", answers: []func(w http.ResponseWriter){
			func(w http.ResponseWriter) {
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(http.StatusServiceUnavailable)
			},
			func(w http.ResponseWriter) {},
		}, exports: 2},
		{name: "partial success", answers: []func(w http.ResponseWriter){
			func(w http.ResponseWriter) {
				resp, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{PartialSuccess: &collectortrace.ExportTracePartialSuccess{RejectedSpans: 1, ErrorMessage: "too old"}})
				w.Header().Set("Content-Type", "application/x-protobuf")
				_, _ = w.Write(resp)
			},
		}, exports: 1, warn: `level=WARN msg="tracing: spans not exported" exporter=otlp spans=1`},
		{name: "400 not retried", answers: []func(w http.ResponseWriter){
			func(w http.ResponseWriter) { http.Error(w, "no", http.StatusBadRequest) },
		}, exports: 1, warn: `level=WARN msg="tracing: spans not exported" exporter=otlp spans=1`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got posted
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got.add(r)
				got.mu.Lock()
				n := len(got.bodies)
				got.mu.Unlock()
				c.answers[min(n, len(c.answers))-1](w)
			}))
			defer srv.Close()
			var logs strings.Builder
			log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey || a.Key == "err" {
					return slog.Attr{}
				}
				return a
			}}))
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
			o, shutdown, err := FromEnv(context.Background(), os.Getenv, "v1", log)
			if err != nil {
				t.Fatal(err)
			}
			oneRequest(t, o, shutdown)
			if len(got.bodies) != c.exports {
				t.Errorf("%d exports, want %d", len(got.bodies), c.exports)
			}
			if !slices.Equal(got.bodies[0], got.bodies[len(got.bodies)-1]) {
				t.Error("the retry's body differs from the first")
			}
			if s := strings.TrimSpace(logs.String()); s != c.warn {
				t.Errorf("logged %q, want %q", s, c.warn)
			}
		})
	}
}

// TestOTLPHTTPCertificate exports to an https receiver whose certificate
// OTEL_EXPORTER_OTLP_CERTIFICATE names; without it the export fails.
func TestOTLPHTTPCertificate(t *testing.T) {
	var got posted
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got.add(r) }))
	defer srv.Close()
	ca := t.TempDir() + "/ca.pem"
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env     map[string]string
		exports int
	}{
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL}, 0},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL, "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE": ca}, 1},
	} {
		before := len(got.bodies)
		o, shutdown, err := FromEnv(context.Background(), envOf(c.env), "v1", nil)
		if err != nil {
			t.Fatal(err)
		}
		oneRequest(t, o, shutdown)
		if n := len(got.bodies) - before; n != c.exports {
			t.Errorf("%v: %d exports, want %d", c.env, n, c.exports)
		}
	}
	_, _, err := FromEnv(context.Background(), envOf(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_CERTIFICATE": ca}), "v1", nil)
	if want := "tracing: a certificate is set for the plaintext OTLP endpoint http://c:4318/v1/traces"; errString(err) != want {
		t.Errorf("error %q, want %q", errString(err), want)
	}
}
