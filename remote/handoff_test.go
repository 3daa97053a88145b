package remote_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/remote"
)

const handoffMessage = `{"metadata":{"message_id":"m1"},"payload":{"handoff_type":"NOTIFICATION","data":{}}}`

func TestPostHandoff(t *testing.T) {
	tests := []struct {
		name       string
		path       string // appended to the server's URL as the endpoint
		h          llmtest.Reply
		wantStatus int
		wantBody   string
		wantCode   string // "" for no error
		recover    bool
	}{
		{"accepted", "", llmtest.Handle(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusAccepted)
			_, _ = io.WriteString(w, `{"message_id":"m1","status":"QUEUED"}`)
		}), 202, `{"message_id":"m1","status":"QUEUED"}`, "", false},
		{"prefix", "/gw/", llmtest.Handle(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusOK)
		}), 200, "", "", false},
		{"invalid message", "", llmtest.Handle(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = io.WriteString(w, `{"type":"ERROR_RESPONSE","content":{"errorCode":"HANDOFF_INVALID","message":"/metadata/timestamp: required","recoverable":false}}`)
		}), 422, `{"type":"ERROR_RESPONSE","content":{"errorCode":"HANDOFF_INVALID","message":"/metadata/timestamp: required","recoverable":false}}`, "HANDOFF_INVALID", false},
		{"busy", "", llmtest.Handle(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, "try later")
		}), 503, "try later", apierr.CodeUpstreamError, true},
		{"too large", "", llmtest.Handle(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, strings.Repeat("x", 201))
		}), 200, "", apierr.CodeUpstreamError, false},
		{"at the limit", "", llmtest.Handle(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, strings.Repeat("x", 200))
		}), 200, strings.Repeat("x", 200), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := remoteServer(t, tt.h)
			c := newClient(t, remote.Config{MaxResponseSize: 200})
			status, body, err := c.PostHandoff(context.Background(), srv.URL()+tt.path, []byte(handoffMessage), pluginHeader())
			if status != tt.wantStatus || string(body) != tt.wantBody {
				t.Errorf("got %d %q, want %d %q", status, body, tt.wantStatus, tt.wantBody)
			}
			switch e := asAgentError(err); {
			case tt.wantCode == "" && err != nil:
				t.Errorf("error %v", err)
			case tt.wantCode != "" && (e == nil || e.Code != tt.wantCode || e.Recoverable != tt.recover || e.Origin() != apierr.SourceUpstream):
				t.Errorf("error %v (%s), want %s recoverable=%t", err, describe(e), tt.wantCode, tt.recover)
			}
			wantURI := "/handoffs"
			if tt.path != "" {
				wantURI = strings.TrimRight(tt.path, "/") + "/handoffs"
			}
			got := captureOf(srv.Only(t))
			if got.method != http.MethodPost || got.uri != wantURI || got.body != handoffMessage {
				t.Errorf("the remote got %s %s %s", got.method, got.uri, got.body)
			}
			if got.header.Get("Content-Type") != "application/json" || got.header.Get("Accept") != "application/json" ||
				got.header.Get("Authorization") != "" || got.header.Get("X-Agentgw-Token") != "" || got.header.Get("Cookie") != "" {
				t.Errorf("the remote got headers %v", got.header)
			}
		})
	}
}

func TestPostHandoffFailures(t *testing.T) {
	t.Run("refused", func(t *testing.T) {
		status, body, err := newClient(t, remote.Config{}).PostHandoff(context.Background(), refusedURL(t), []byte(handoffMessage), nil)
		if status != 0 || body != nil {
			t.Errorf("got %d %q", status, body)
		}
		wantCode(t, err, apierr.CodeUpstreamUnavailable)
	})
	t.Run("timeout", func(t *testing.T) {
		srv := remoteServer(t, stalled)
		_, _, err := newClient(t, remote.Config{FirstByteTimeout: 20 * time.Millisecond}).PostHandoff(context.Background(), srv.URL(), []byte(handoffMessage), nil)
		wantCode(t, err, apierr.CodeUpstreamTimeout)
		srv.Ended(t)
	})
	t.Run("idle body", func(t *testing.T) {
		srv := remoteServer(t, llmtest.Stream(llmtest.Raw(`{"message_id":`), llmtest.Stall()))
		status, body, err := newClient(t, remote.Config{IdleTimeout: 20 * time.Millisecond}).PostHandoff(context.Background(), srv.URL(), []byte(handoffMessage), nil)
		wantCode(t, err, apierr.CodeUpstreamTimeout)
		if status != 200 || body != nil {
			t.Errorf("got %d %q", status, body)
		}
		srv.Ended(t)
	})
	t.Run("canceled", func(t *testing.T) {
		started := llmtest.NewGate() // never released: the request waits at it
		srv := remoteServer(t, llmtest.Reply{Before: []llmtest.Event{llmtest.Wait(started)}})
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-started.Reached(); cancel() }()
		_, _, err := newClient(t, remote.Config{}).PostHandoff(ctx, srv.URL(), []byte(handoffMessage), nil)
		wantCode(t, err, apierr.CodeCanceled)
		srv.Ended(t)
	})
	t.Run("bad endpoint", func(t *testing.T) {
		_, _, err := newClient(t, remote.Config{}).PostHandoff(context.Background(), "mailto:x@y", []byte(handoffMessage), nil)
		if e := asAgentError(err); e == nil || e.Code != apierr.CodeUpstreamUnavailable {
			t.Errorf("got %v", err)
		}
	})
}
