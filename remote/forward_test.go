package remote_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/golden"
	"github.com/agentgw/agentgw/internal/syncbuf"
	"github.com/agentgw/agentgw/remote"
	"github.com/agentgw/agentgw/sse"
)

// streams are remotes' answers; each case's transcript (what the sink
// received, and the outcome) is in testdata/forward/<name>.golden.
var streams = []struct {
	name string
	h    http.HandlerFunc
}{
	{"text", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		send(w, chunk("Hello"))
		send(w, chunk(", world"))
		send(w, chunk("!"))
		send(w, endChunk)
		send(w, "data: [DONE]\n\n")
	}},
	{"done_seed_spelling", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		send(w, chunk("one"))
		send(w, "data: [Done]\n") // the seed's sample: one line break, then the end
	}},
	{"terminator_then_more", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		send(w, chunk("before"))
		send(w, "data: [DONE]\n\n")
		send(w, chunk("after the terminator"))
	}},
	{"crlf_and_multiline_data", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		send(w, "data: {\"id\":\"x\",\r\ndata: \"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},\"finish_reason\":null}]}\r\n\r\n")
		send(w, "data: [DONE]\r\n\r\n")
	}},
	{"comments_and_unknown_events", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		send(w, ": ping\n\n")
		send(w, chunk("a"))
		send(w, "event: copilot_progress\ndata: {\"step\":1}\n\n")
		send(w, "id: 7\nretry: 10\n: another ping\n\n")
		send(w, "event: copilot_tool_call\ndata: {\"id\":\"t\"}\n\n")
		send(w, "data:\n\n")
		send(w, chunk("b"))
		send(w, "data: [DONE]\n\n")
	}},
	{"actions", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		send(w, chunk("pick one"))
		send(w, `event: copilot_action`+"\n"+`data: {"action":"confirm","state":{"page":2},"data":{"title":"Next page","message":"show more"}}`+"\n\n")
		send(w, `event: copilot_action`+"\n"+`data: {"action":"tree","state":"opaque-state","data":{"treeId":"t1","rootPId":"0","nodes":[{"id":"n1","pId":"0","type":"file","name":"a.go","description":"","labels":["go"]},{"id":"n2","pId":"n1","type":"func","name":"main","description":"entry","labels":[]}],"nodeActions":[{"nodeType":"file","nodeAction":"expand"},{"nodeType":"func","nodeAction":"click","promptByNodeProperty":"name"}]}}`+"\n\n")
		send(w, endChunk)
		send(w, "data: [DONE]\n\n")
	}},
	{"action_invalid", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		send(w, chunk("pick one"))
		send(w, `event: copilot_action`+"\n"+`data: {"action":"tree","state":{},"data":{"treeId":"t1","rootPId":"0","nodes":[{"id":"n1","pId":"nowhere","type":"file","name":"a","description":"","labels":[]}],"nodeActions":[{"nodeType":"dir","nodeAction":"expand"}]}}`+"\n\n")
		send(w, chunk("never relayed"))
		send(w, "data: [DONE]\n\n")
	}},
	{"action_not_json", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		send(w, "event: copilot_action\ndata: {\"action\":\n\n")
		send(w, "data: [DONE]\n\n")
	}},
	{"copilot_error", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		send(w, chunk("partial"))
		send(w, `event: copilot_error`+"\n"+`data: {"errorCode":"TOOL_FAILED","message":"the tool search failed","recoverable":true,"suggestedAction":"try again later","requestId":"rid-1","source":"server"}`+"\n\n")
		send(w, `data: {"id":"chatcmpl-remote","object":"chat.completion.chunk","created":1700000000,"model":"m1","choices":[{"index":0,"delta":{},"finish_reason":"error"}]}`+"\n\n")
		send(w, "data: [DONE]\n\n")
	}},
	{"copilot_error_upstream", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		send(w, `event: copilot_error`+"\n"+`data: {"errorCode":"UPSTREAM_ERROR","message":"the model platform answered 429: slow down","recoverable":true,"suggestedAction":"wait a moment and try again","requestId":"rid-2","source":"upstream","upstreamStatus":429}`+"\n\n")
		send(w, "data: [DONE]\n\n")
	}},
	{"copilot_error_odd_codes", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		send(w, `event: copilot_error`+"\n"+`data: {"errorCode":"MY_OWN_CODE_7","message":"a code this gateway does not know"}`+"\n\n")
		send(w, `event: copilot_error`+"\n"+`data: {"errorCode":"not a code","message":"lower case"}`+"\n\n")
		send(w, `event: copilot_error`+"\n"+`data: {"errorCode":"CANCELED","message":"canceled there"}`+"\n\n")
		send(w, `event: copilot_error`+"\n"+`data: {}`+"\n\n")
		send(w, `event: copilot_error`+"\n"+`data: not json`+"\n\n")
		send(w, "data: [DONE]\n\n")
	}},
	{"copilot_error_then_eof", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		send(w, `event: copilot_error`+"\n"+`data: {"errorCode":"STEP_FAILED","message":"step x failed","recoverable":false}`+"\n\n")
	}},
	{"end_chunk_then_eof", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		send(w, chunk("whole"))
		send(w, endChunk)
	}},
	{"end_chunk_role_only_spaced", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		send(w, chunk("x"))
		send(w, `data: {"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[ ]},"finish_reason" : "stop"}]}`+"\n\n")
		send(w, "data: [DONE]\n\n")
	}},
	{"finish_with_content_kept", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		send(w, `data: {"id":"c","choices":[{"index":0,"delta":{"content":"last words"},"finish_reason":"stop"}]}`+"\n\n")
		send(w, `data: {"id":"c","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`+"\n\n")
		send(w, `data: {"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"length"}]}`+"\n\n")
		send(w, "data: [DONE]\n\n")
	}},
	{"mid_stream_error_object", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		send(w, chunk("a"))
		send(w, `data: {"error":{"message":"model overloaded","type":"server_error"}}`+"\n\n")
	}},
	{"error_event", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		send(w, chunk("a"))
		send(w, "event: error\ndata: {\"message\":\"upstream closed\"}\n\n")
	}},
	{"truncated", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		send(w, chunk("a"))
		send(w, chunk("b"))
	}},
	{"empty_stream", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
	}},
	{"only_terminator", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		send(w, "data: [DONE]\n\n")
	}},
	{"ok_not_event_stream", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"choices":[{"message":{"content":"hi"}}]}`))
	}},
	{"no_content_204", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}},
	{"status_404_error_response", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"type":"ERROR_RESPONSE","content":{"errorCode":"AGENT_NOT_FOUND","message":"no agent named \"security\"; did you mean \"secure\"?","details":{"requestId":"rid-404","timestamp":"2024-01-01T00:00:00Z"},"source":"client","recoverable":false,"suggestedAction":"GET /agents lists the agents"}}`))
	}},
	{"status_429_error_response", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"type":"ERROR_RESPONSE","content":{"errorCode":"RATE_LIMITED","message":"too many requests from 10.0.0.1","recoverable":true}}`))
	}},
	{"status_401_plain", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte("unauthorized\n"))
	}},
	{"status_500_openai_shape", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error":{"message":"boom","type":"server_error"}}`))
	}},
	{"status_503_empty", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}},
	{"status_302_not_followed", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://elsewhere.invalid/", http.StatusFound)
	}},
	{"oversized_frame", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		send(w, chunk("fits"))
		send(w, chunk(strings.Repeat("x", 2048)))
		send(w, "data: [DONE]\n\n")
	}},
	{"oversized_frame_many_lines", func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		send(w, strings.Repeat("data: {}\n", 400))
		send(w, "\ndata: [DONE]\n\n")
	}},
}

func TestForwardStreams(t *testing.T) {
	for _, tt := range streams {
		t.Run(tt.name, func(t *testing.T) {
			srv := remoteServer(t, tt.h)
			c := newClient(t, remote.Config{MaxFrameSize: 1024})
			rec := &recorder{}
			err := forward(t, c, srv.URL, rec)
			out := strings.ReplaceAll(string(rec.transcript(err)), srv.URL, "http://remote.test")
			golden.Check(t, filepath.Join("testdata", "forward", tt.name+".golden"), []byte(out))
		})
	}
}

// TestForwardChunksByteForByte: chunks reach the sink exactly as the
// remote wrote them, in order, however the remote's writes split them.
func TestForwardChunksByteForByte(t *testing.T) {
	var want []string
	var stream strings.Builder
	for i := range 50 {
		c := chunk(fmt.Sprintf("token %d «ü» \\ \"q\"", i))
		want = append(want, strings.TrimSuffix(strings.TrimPrefix(c, "data: "), "\n\n"))
		stream.WriteString(c)
	}
	stream.WriteString(endChunk + "data: [DONE]\n\n")
	for _, split := range []int{1, 7, 100, 1 << 20} {
		t.Run(fmt.Sprint(split), func(t *testing.T) {
			srv := remoteServer(t, func(w http.ResponseWriter, r *http.Request) {
				streamHeaders(w)
				s := stream.String()
				for len(s) > 0 {
					n := min(split, len(s))
					send(w, s[:n])
					s = s[n:]
				}
			})
			rec := &recorder{}
			if err := forward(t, newClient(t, remote.Config{}), srv.URL, rec); err != nil {
				t.Fatal(err)
			}
			if len(rec.chunks) != len(want) {
				t.Fatalf("%d chunks relayed, want %d", len(rec.chunks), len(want))
			}
			for i := range want {
				if string(rec.chunks[i]) != want[i] {
					t.Errorf("chunk %d:\n got %s\nwant %s", i, rec.chunks[i], want[i])
				}
			}
		})
	}
}

// TestForwardMalformedChunk: a chunk the gateway's SSE writer refuses
// (not a JSON object) is an error of the remote, not of the client.
func TestForwardMalformedChunk(t *testing.T) {
	for _, data := range []string{`hello`, `{"id":1,`, `[1,2]`, `"text"`} {
		srv := remoteServer(t, func(w http.ResponseWriter, r *http.Request) {
			streamHeaders(w)
			send(w, "data: "+data+"\n\n")
			send(w, "data: [DONE]\n\n")
		})
		err := forward(t, newClient(t, remote.Config{}), srv.URL, newWriterSink())
		e := asAgentError(err)
		if e == nil || e.Code != apierr.CodeUpstreamError || !strings.Contains(e.Message, "not a JSON object") || !errors.Is(err, sse.ErrMalformedChunk) {
			t.Errorf("%s: %v", data, err)
		}
	}
}

// TestForwardFrameLimitBoundary: a frame of exactly MaxFrameSize bytes
// (its line breaks and the comments before it included) passes, one more
// byte does not.
func TestForwardFrameLimitBoundary(t *testing.T) {
	frame := ": ping\n" + chunk("exactly")
	srv := remoteServer(t, func(w http.ResponseWriter, r *http.Request) {
		streamHeaders(w)
		send(w, frame)
		send(w, "data: [DONE]\n\n")
	})
	if err := forward(t, newClient(t, remote.Config{MaxFrameSize: len(frame)}), srv.URL, &recorder{}); err != nil {
		t.Errorf("a frame of the limit's size: %v", err)
	}
	err := forward(t, newClient(t, remote.Config{MaxFrameSize: len(frame) - 1}), srv.URL, &recorder{})
	if e := asAgentError(err); e == nil || !strings.Contains(e.Message, "larger than") {
		t.Errorf("a frame one byte over the limit: %v", err)
	}
}

// TestForwardLogs: with debug logging on, a call logs one line that
// names the redacted endpoint and never a credential.
func TestForwardLogs(t *testing.T) {
	var buf syncbuf.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := remoteServer(t, streams[0].h)
	c := newClient(t, remote.Config{Logger: log})
	if err := c.Forward(context.Background(), srv.URL+"/x?key="+urlQueryKey, "a", []byte(agentBody), nil, &recorder{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.PostHandoff(context.Background(), refusedURL(t)+"?key="+urlQueryKey, []byte(`{}`), nil); err == nil {
		t.Fatal("no error")
	}
	out := buf.String()
	if strings.Count(out, "\n") != 2 || !strings.Contains(out, "chunks=3") || !strings.Contains(out, "key=REDACTED") || len(leaks(out)) > 0 {
		t.Errorf("log:\n%s", out)
	}
}
