package openaiapi_test

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgw/agentgw/llm/llmtest"
)

// Credentials of the redaction tests: the gateway's upstream key, the
// client's token (forwarded in the forward mode) and another credential
// the gateway holds (an inbound token).
const (
	upstreamKey  = "sk-upstream-0123456789abcdef"
	clientToken  = "sk-client-9876543210fedcba"
	gatewayToken = "agw-inbound-token-5555"
)

// lockedBuffer is a log sink safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// echoed is what an echoing upstream repeats: the credential it was sent
// and the gateway's other one.
func echoed(r *http.Request) string {
	return r.Header.Get("Authorization") + " " + gatewayToken
}

func compress(t *testing.T, enc, s string) []byte {
	var b bytes.Buffer
	var w io.WriteCloser
	switch enc {
	case "gzip":
		w = gzip.NewWriter(&b)
	case "zlib":
		w = zlib.NewWriter(&b)
	case "flate":
		w, _ = flate.NewWriter(&b, flate.BestSpeed)
	}
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestPassthroughRedactsEveryPath: an upstream that echoes the credentials
// it was sent, in each way it can (a header, a header's name, a 1xx
// answer, a trailer, an encoded error body, an encoded answer, an error
// event of a 200 stream, a credential split across writes), never gets one
// to the client: not in a header, not in the decoded body, not in a
// trailer; nor into the gateway's log.
func TestPassthroughRedactsEveryPath(t *testing.T) {
	errJSON := func(r *http.Request) string {
		return `{"error":{"message":"invalid key: ` + echoed(r) + `","type":"invalid_request_error"}}`
	}
	tests := []struct {
		name string
		// upstream answers; t is the test's.
		upstream func(t *testing.T, w http.ResponseWriter, r *http.Request)
		// status is the status the client should get; wantIn, a text its
		// decoded body or headers should hold.
		status int
		wantIn string
	}{
		{"header", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Echo-Auth", echoed(r))
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"choices":[]}`))
		}, 200, "X-Echo-Auth: [REDACTED] [REDACTED]"},
		{"header name", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			w.Header().Set(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), "1")
			_, _ = w.Write([]byte(`{}`))
		}, 200, "{}"},
		{"1xx answer", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Link", "</x>; rel=preload; k="+echoed(r))
			w.WriteHeader(http.StatusEarlyHints)
			w.Header().Del("Link")
			_, _ = w.Write([]byte(`{}`))
		}, 200, "Link: </x>; rel=preload; k=[REDACTED] [REDACTED]"},
		{"trailer", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Trailer", "X-Echo")
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte(llmtest.Done))
			w.Header().Set("X-Echo", echoed(r))
		}, 200, "X-Echo: [REDACTED] [REDACTED]"},
		{"deflate error body", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "deflate")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write(compress(t, "zlib", errJSON(r)))
		}, 401, "invalid key: [REDACTED] [REDACTED]"},
		{"raw deflate answer", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "deflate")
			_, _ = w.Write(compress(t, "flate", `{"note":"`+echoed(r)+`"}`))
		}, 200, `{"note":"[REDACTED] [REDACTED]"}`},
		{"gzip error body", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write(compress(t, "gzip", errJSON(r)))
		}, 429, "invalid key: [REDACTED] [REDACTED]"},
		{"gzip then deflate", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip, deflate")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write(compress(t, "zlib", string(compress(t, "gzip", errJSON(r)))))
		}, 400, "invalid key: [REDACTED] [REDACTED]"},
		{"unknown encoding", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "br")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(errJSON(r)))
		}, 502, "encoding the gateway cannot read"},
		{"error event of a 200 stream", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n"))
			w.(http.Flusher).Flush()
			_, _ = w.Write([]byte("data: " + errJSON(r) + "\n\n"))
		}, 200, "invalid key: [REDACTED] [REDACTED]"},
		{"split across writes", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			e := "data: " + errJSON(r) + "\n\n"
			// Cuts inside the echoed token and inside the gateway's.
			a, b := strings.Index(e, "sk-")+5, strings.Index(e, gatewayToken)+3
			for _, part := range []string{e[:a], e[a:b], e[b:]} {
				_, _ = w.Write([]byte(part))
				w.(http.Flusher).Flush()
				time.Sleep(20 * time.Millisecond)
			}
		}, 200, "invalid key: [REDACTED] [REDACTED]"},
		{"long answer of unknown length", func(t *testing.T, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"a":"`))
			w.(http.Flusher).Flush()
			_, _ = w.Write([]byte(echoed(r) + `",` + strings.Repeat(" ", 70<<10) + `"b":1}`))
		}, 200, `{"a":"[REDACTED] [REDACTED]",`},
	}
	for _, mode := range []struct{ name, key string }{{"key mode", upstreamKey}, {"forward mode", ""}} {
		for _, tc := range tests {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				logs := &lockedBuffer{}
				up := handle(func(w http.ResponseWriter, r *http.Request) { tc.upstream(t, w, r) })
				gw := start(t, setup{upstream: up, passthrough: true, apiKey: mode.key, secrets: []string{gatewayToken},
					logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
				status, seen := answerSeen(t, gw.URL, "gpt-4o", true)
				if status != tc.status || !strings.Contains(seen, tc.wantIn) {
					t.Errorf("status %d, want %d; the client saw\n%.2000s\nwant it to hold %q", status, tc.status, seen, tc.wantIn)
				}
				for _, secret := range []string{upstreamKey, clientToken, gatewayToken} {
					if strings.Contains(seen, secret) {
						t.Errorf("the client got %q:\n%.2000s", secret, seen)
					}
					if strings.Contains(logs.String(), secret) {
						t.Errorf("the log holds %q:\n%s", secret, logs)
					}
				}
			})
		}
	}
}

// answerSeen posts a chat completion of model, streamed or not, with the
// client's token, and returns the status and everything the client sees:
// each header (1xx answers' too), the body decoded as its
// Content-Encoding says, and the trailers.
func answerSeen(t *testing.T, base, model string, stream bool) (int, string) {
	t.Helper()
	var seen strings.Builder
	trace := &httptrace.ClientTrace{Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
		_ = http.Header(h).Write(&seen)
		return nil
	}}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(t.Context(), trace), http.MethodPost,
		base+"/v1/chat/completions", strings.NewReader(fmt.Sprintf(`{"model":%q,"stream":%v,"messages":[{"role":"user","content":"hi"}]}`, model, stream)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+clientToken)
	req.Header.Set("Accept-Encoding", "gzip, deflate, br")
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_ = resp.Header.Write(&seen)
	var body io.Reader = resp.Body
	switch ce := resp.Header.Get("Content-Encoding"); ce {
	case "":
	case "gzip":
		if body, err = gzip.NewReader(body); err != nil {
			t.Fatal(err)
		}
	case "deflate":
		if body, err = zlib.NewReader(body); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("the client got a body in %q", ce)
	}
	data, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	seen.Write(data)
	_ = resp.Trailer.Write(&seen)
	return resp.StatusCode, seen.String()
}

// TestAgentAnswerRedactsUpstreamErrors: a model that is an agent runs
// through the llm client; an upstream that echoes the gateway's key in an
// error event of a 200 stream or in a deflate error body fails the answer
// in OpenAI's error shape without the key, streamed or not, and the log
// does not hold it either.
func TestAgentAnswerRedactsUpstreamErrors(t *testing.T) {
	upstreams := map[string]http.HandlerFunc{
		"error event of a 200 stream": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":null}]}\n\n"))
			_, _ = w.Write([]byte("data: {\"error\":{\"message\":\"invalid key: " + r.Header.Get("Authorization") + "\"}}\n\n"))
		},
		"deflate error body": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "deflate")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write(compress(t, "zlib", `{"error":{"message":"invalid key: `+r.Header.Get("Authorization")+`"}}`))
		},
	}
	for name, h := range upstreams {
		up := handle(h)
		for _, stream := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s, stream %v", name, stream), func(t *testing.T) {
				logs := &lockedBuffer{}
				gw := start(t, setup{upstream: up, apiKey: upstreamKey,
					logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
				status, seen := answerSeen(t, gw.URL, "coder", stream)
				if !strings.Contains(seen, `"error":{"message":`) || !strings.Contains(seen, "[REDACTED]") {
					t.Errorf("status %d; the client saw\n%s\nwant an error showing the redaction", status, seen)
				}
				if strings.Contains(seen, upstreamKey) || strings.Contains(logs.String(), upstreamKey) {
					t.Errorf("the key reached the client or the log:\n%s\n%s", seen, logs)
				}
			})
		}
	}
}
