package remote_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/remote"
)

const handoffMessage = `{"metadata":{"message_id":"m1"},"payload":{"handoff_type":"NOTIFICATION","data":{}}}`

func TestPostHandoff(t *testing.T) {
	tests := []struct {
		name       string
		path       string // appended to the server's URL as the endpoint
		h          http.HandlerFunc
		wantStatus int
		wantBody   string
		wantCode   string // "" for no error
		recover    bool
	}{
		{"accepted", "", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusAccepted)
			_, _ = io.WriteString(w, `{"message_id":"m1","status":"QUEUED"}`)
		}, 202, `{"message_id":"m1","status":"QUEUED"}`, "", false},
		{"prefix", "/gw/", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusOK)
		}, 200, "", "", false},
		{"invalid message", "", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = io.WriteString(w, `{"type":"ERROR_RESPONSE","content":{"errorCode":"HANDOFF_INVALID","message":"/metadata/timestamp: required","recoverable":false}}`)
		}, 422, `{"type":"ERROR_RESPONSE","content":{"errorCode":"HANDOFF_INVALID","message":"/metadata/timestamp: required","recoverable":false}}`, "HANDOFF_INVALID", false},
		{"busy", "", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, "try later")
		}, 503, "try later", apierr.CodeUpstreamError, true},
		{"too large", "", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, strings.Repeat("x", 201))
		}, 200, "", apierr.CodeUpstreamError, false},
		{"at the limit", "", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusOK)
			_, _ = io.WriteString(w, strings.Repeat("x", 200))
		}, 200, strings.Repeat("x", 200), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got captured
			srv := remoteServer(t, func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				got.mu.Lock()
				got.method, got.uri, got.header, got.body = r.Method, r.URL.RequestURI(), r.Header.Clone(), string(b)
				got.mu.Unlock()
				tt.h(w, r)
			})
			c := newClient(t, remote.Config{MaxResponseSize: 200})
			status, body, err := c.PostHandoff(context.Background(), srv.URL+tt.path, []byte(handoffMessage), pluginHeader())
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
		ended := make(chan struct{})
		srv := remoteServer(t, blocking(ended, nil))
		_, _, err := newClient(t, remote.Config{FirstByteTimeout: 20 * time.Millisecond}).PostHandoff(context.Background(), srv.URL, []byte(handoffMessage), nil)
		wantCode(t, err, apierr.CodeUpstreamTimeout)
		<-ended
	})
	t.Run("idle body", func(t *testing.T) {
		ended := make(chan struct{})
		srv := remoteServer(t, blocking(ended, func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusOK)
			send(w, `{"message_id":`)
		}))
		status, body, err := newClient(t, remote.Config{IdleTimeout: 20 * time.Millisecond}).PostHandoff(context.Background(), srv.URL, []byte(handoffMessage), nil)
		wantCode(t, err, apierr.CodeUpstreamTimeout)
		if status != 200 || body != nil {
			t.Errorf("got %d %q", status, body)
		}
		<-ended
	})
	t.Run("canceled", func(t *testing.T) {
		ended := make(chan struct{})
		started := make(chan struct{})
		srv := remoteServer(t, blocking(ended, func(http.ResponseWriter) { close(started) }))
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-started; cancel() }()
		_, _, err := newClient(t, remote.Config{}).PostHandoff(ctx, srv.URL, []byte(handoffMessage), nil)
		wantCode(t, err, apierr.CodeCanceled)
		<-ended
	})
	t.Run("bad endpoint", func(t *testing.T) {
		_, _, err := newClient(t, remote.Config{}).PostHandoff(context.Background(), "mailto:x@y", []byte(handoffMessage), nil)
		if e := asAgentError(err); e == nil || e.Code != apierr.CodeUpstreamUnavailable {
			t.Errorf("got %v", err)
		}
	})
}
