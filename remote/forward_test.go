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
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/remote"
	"github.com/agentgw/agentgw/sse"
)

// streams are remotes' answers; each case's transcript (what the sink
// received, and the outcome) is in testdata/forward/<name>.golden.
var streams = []struct {
	name string
	h    llmtest.Reply
}{
	{"text", agentStream(
		chunk("Hello"),
		chunk(", world"),
		chunk("!"),
		endChunk,
		llmtest.Done,
	)},
	{"done_seed_spelling", agentStream(chunk("one"), "data: [Done]\n")},
	{"terminator_then_more", agentStream(
		chunk("before"),
		llmtest.Done,
		chunk("after the terminator"),
	)},
	{"crlf_and_multiline_data", agentStream(
		"data: {\"id\":\"x\",\r\ndata: \"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},\"finish_reason\":null}]}\r\n\r\n",
		"data: [DONE]\r\n\r\n",
	)},
	{"comments_and_unknown_events", agentStream(
		": ping\n\n",
		chunk("a"),
		"event: copilot_progress\ndata: {\"step\":1}\n\n",
		"id: 7\nretry: 10\n: another ping\n\n",
		"event: copilot_tool_call\ndata: {\"id\":\"t\"}\n\n",
		"data:\n\n",
		chunk("b"),
		llmtest.Done,
	)},
	{"actions", agentStream(
		chunk("pick one"),
		`event: copilot_action`+"\n"+`data: {"action":"confirm","state":{"page":2},"data":{"title":"Next page","message":"show more"}}`+"\n\n",
		`event: copilot_action`+"\n"+`data: {"action":"tree","state":"opaque-state","data":{"treeId":"t1","rootPId":"0","nodes":[{"id":"n1","pId":"0","type":"file","name":"a.go","description":"","labels":["go"]},{"id":"n2","pId":"n1","type":"func","name":"main","description":"entry","labels":[]}],"nodeActions":[{"nodeType":"file","nodeAction":"expand"},{"nodeType":"func","nodeAction":"click","promptByNodeProperty":"name"}]}}`+"\n\n",
		endChunk,
		llmtest.Done,
	)},
	{"action_invalid", agentStream(
		chunk("pick one"),
		`event: copilot_action`+"\n"+`data: {"action":"tree","state":{},"data":{"treeId":"t1","rootPId":"0","nodes":[{"id":"n1","pId":"nowhere","type":"file","name":"a","description":"","labels":[]}],"nodeActions":[{"nodeType":"dir","nodeAction":"expand"}]}}`+"\n\n",
		chunk("never relayed"),
		llmtest.Done,
	)},
	{"action_not_json", agentStream("event: copilot_action\ndata: {\"action\":\n\n", llmtest.Done)},
	{"copilot_error", agentStream(
		chunk("partial"),
		`event: copilot_error`+"\n"+`data: {"errorCode":"TOOL_FAILED","message":"the tool search failed","recoverable":true,"suggestedAction":"try again later","requestId":"rid-1","source":"server"}`+"\n\n",
		`data: {"id":"chatcmpl-remote","object":"chat.completion.chunk","created":1700000000,"model":"m1","choices":[{"index":0,"delta":{},"finish_reason":"error"}]}`+"\n\n",
		llmtest.Done,
	)},
	{"copilot_error_upstream", agentStream(
		`event: copilot_error`+"\n"+`data: {"errorCode":"UPSTREAM_ERROR","message":"the model platform answered 429: slow down","recoverable":true,"suggestedAction":"wait a moment and try again","requestId":"rid-2","source":"upstream","upstreamStatus":429}`+"\n\n",
		llmtest.Done,
	)},
	{"copilot_error_odd_codes", agentStream(
		`event: copilot_error`+"\n"+`data: {"errorCode":"MY_OWN_CODE_7","message":"a code this gateway does not know"}`+"\n\n",
		`event: copilot_error`+"\n"+`data: {"errorCode":"not a code","message":"lower case"}`+"\n\n",
		`event: copilot_error`+"\n"+`data: {"errorCode":"CANCELED","message":"canceled there"}`+"\n\n",
		`event: copilot_error`+"\n"+`data: {}`+"\n\n",
		`event: copilot_error`+"\n"+`data: not json`+"\n\n",
		llmtest.Done,
	)},
	{"copilot_error_then_eof", agentStream(`event: copilot_error` + "\n" + `data: {"errorCode":"STEP_FAILED","message":"step x failed","recoverable":false}` + "\n\n")},
	{"end_chunk_then_eof", agentStream(chunk("whole"), endChunk)},
	{"end_chunk_role_only_spaced", agentStream(
		chunk("x"),
		`data: {"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[ ]},"finish_reason" : "stop"}]}`+"\n\n",
		llmtest.Done,
	)},
	{"finish_with_content_kept", agentStream(
		`data: {"id":"c","choices":[{"index":0,"delta":{"content":"last words"},"finish_reason":"stop"}]}`+"\n\n",
		`data: {"id":"c","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`+"\n\n",
		`data: {"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"length"}]}`+"\n\n",
		llmtest.Done,
	)},
	{"mid_stream_error_object", agentStream(chunk("a"), `data: {"error":{"message":"model overloaded","type":"server_error"}}`+"\n\n")},
	{"error_event", agentStream(chunk("a"), "event: error\ndata: {\"message\":\"upstream closed\"}\n\n")},
	{"truncated", agentStream(chunk("a"), chunk("b"))},
	{"empty_stream", agentStream()},
	{"only_terminator", agentStream(llmtest.Done)},
	{"ok_not_event_stream", llmtest.Handle(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"choices":[{"message":{"content":"hi"}}]}`))
	})},
	{"no_content_204", llmtest.Handle(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})},
	{"status_404_error_response", llmtest.Handle(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"type":"ERROR_RESPONSE","content":{"errorCode":"AGENT_NOT_FOUND","message":"no agent named \"security\"; did you mean \"secure\"?","details":{"requestId":"rid-404","timestamp":"2024-01-01T00:00:00Z"},"source":"client","recoverable":false,"suggestedAction":"GET /agents lists the agents"}}`))
	})},
	{"status_429_error_response", llmtest.Handle(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"type":"ERROR_RESPONSE","content":{"errorCode":"RATE_LIMITED","message":"too many requests from 10.0.0.1","recoverable":true}}`))
	})},
	{"status_401_plain", llmtest.Handle(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte("unauthorized\n"))
	})},
	{"status_500_openai_shape", llmtest.Handle(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error":{"message":"boom","type":"server_error"}}`))
	})},
	{"status_503_empty", llmtest.Handle(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	})},
	{"status_302_not_followed", llmtest.Handle(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://elsewhere.invalid/", http.StatusFound)
	})},
	{"oversized_frame", agentStream(
		chunk("fits"),
		chunk(strings.Repeat("x", 2048)),
		llmtest.Done,
	)},
	{"oversized_frame_many_lines", agentStream(strings.Repeat("data: {}\n", 400), "\ndata: [DONE]\n\n")},
}

func TestForwardStreams(t *testing.T) {
	for _, tt := range streams {
		t.Run(tt.name, func(t *testing.T) {
			srv := remoteServer(t, tt.h)
			c := newClient(t, remote.Config{MaxFrameSize: 1024})
			rec := &recorder{}
			err := forward(t, c, srv.URL(), rec)
			out := strings.ReplaceAll(string(rec.transcript(err)), srv.URL(), "http://remote.test")
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
	stream.WriteString(endChunk + llmtest.Done)
	for _, split := range []int{1, 7, 100, 1 << 20} {
		t.Run(fmt.Sprint(split), func(t *testing.T) {
			srv := remoteServer(t, llmtest.Handle(func(w http.ResponseWriter, r *http.Request) {
				streamHeaders(w)
				s := stream.String()
				for len(s) > 0 {
					n := min(split, len(s))
					send(w, s[:n])
					s = s[n:]
				}
			}))
			rec := &recorder{}
			if err := forward(t, newClient(t, remote.Config{}), srv.URL(), rec); err != nil {
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
		srv := remoteServer(t, agentStream("data: "+data+"\n\n", llmtest.Done))
		err := forward(t, newClient(t, remote.Config{}), srv.URL(), newWriterSink())
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
	srv := remoteServer(t, agentStream(frame, llmtest.Done))
	if err := forward(t, newClient(t, remote.Config{MaxFrameSize: len(frame)}), srv.URL(), &recorder{}); err != nil {
		t.Errorf("a frame of the limit's size: %v", err)
	}
	err := forward(t, newClient(t, remote.Config{MaxFrameSize: len(frame) - 1}), srv.URL(), &recorder{})
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
	if err := c.Forward(context.Background(), srv.URL()+"/x?key="+urlQueryKey, "a", []byte(agentBody), nil, &recorder{}); err != nil {
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
