package remote_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/llm/llmtest"
	"github.com/agentgw/agentgw/remote"
)

const (
	urlPassword   = "url-PASSWORD-1234"
	urlQueryKey   = "query-KEY-5678"
	pluginBearer  = "plugin-BEARER-abcd"
	remoteToken   = "remote-GW-TOKEN-9876"
	configuredKey = "configured-SECRET-4321"
)

var allSecrets = []string{urlPassword, urlQueryKey, pluginBearer, remoteToken, configuredKey}

// leaks returns the secrets found in s.
func leaks(s string) []string {
	var out []string
	for _, sec := range allSecrets {
		if strings.Contains(s, sec) || strings.Contains(s, url.QueryEscape(sec)) {
			out = append(out, sec)
		}
	}
	return out
}

// echoing remotes put every credential they were sent, and some they were
// not, into their failures.
var echoing = map[string]llmtest.Reply{
	"status": llmtest.Handle(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, "forbidden: %s %s %s %s %s", r.Header.Get("Authorization"), r.Header.Get("X-Agentgw-Token"), r.URL.RawQuery, urlPassword, configuredKey)
	}),
	"error response": llmtest.Handle(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"type":"ERROR_RESPONSE","content":{"errorCode":"UNAUTHORIZED","message":"token %s is wrong","suggestedAction":"use %s"}}`, remoteToken, pluginBearer)
	}),
	"copilot_error": agentStream(
		fmt.Sprintf("event: copilot_error\ndata: {\"errorCode\":\"X\",\"message\":\"key %s\",\"suggestedAction\":\"not %s\",\"requestId\":\"%s\"}\n\n", urlQueryKey, urlPassword, remoteToken),
		llmtest.Done,
	),
	"error event": agentStream(fmt.Sprintf("event: error\ndata: {\"message\":\"bad %s\"}\n\n", pluginBearer)),
	"bad action":  agentStream(fmt.Sprintf("event: copilot_action\ndata: {\"action\":\"%s\"}\n\n", remoteToken)),
	"bad chunk":   agentStream(fmt.Sprintf("data: {\"id\":1,%s\n\n", configuredKey)),
	"not a stream": llmtest.Handle(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; x="+urlQueryKey)
	}),
	"timeout": {Before: []llmtest.Event{llmtest.Stall()}},
}

// TestNoCredentialInErrors: whatever a remote echoes, and whatever the
// endpoint URL carries, no error text (message, suggestion, cause) holds
// a credential.
func TestNoCredentialInErrors(t *testing.T) {
	cfg := remote.Config{
		ForwardAuthorization: true,
		FirstByteTimeout:     20 * time.Millisecond,
		Secrets:              []string{configuredKey},
		EndpointHeader:       func(string) http.Header { return http.Header{"X-Agentgw-Token": {remoteToken}} },
		MaxFrameSize:         4096,
	}
	header := http.Header{"Authorization": {"Bearer " + pluginBearer}}
	check := func(t *testing.T, what string, err error, sink *writerSink) {
		t.Helper()
		texts := []string{}
		if err != nil {
			texts = append(texts, err.Error())
			if e := asAgentError(err); e != nil {
				texts = append(texts, e.Message, e.Suggestion())
			}
		}
		texts = append(texts, sink.errors...)
		for _, s := range texts {
			if l := leaks(s); len(l) > 0 {
				t.Errorf("%s: %v in %q", what, l, s)
			}
		}
	}
	for name, h := range echoing {
		t.Run(name, func(t *testing.T) {
			srv := remoteServer(t, h)
			u, _ := url.Parse(srv.URL())
			endpoint := fmt.Sprintf("http://user:%s@%s/hook?key=%s", urlPassword, u.Host, urlQueryKey)
			sink := newWriterSink()
			err := newClient(t, cfg).Forward(context.Background(), endpoint, "a", []byte(agentBody), header, sink)
			if err == nil && len(sink.errors) == 0 {
				t.Fatal("no failure")
			}
			check(t, "Forward", err, sink)
			_, _, err = newClient(t, cfg).PostHandoff(context.Background(), endpoint, []byte(`{}`), header)
			check(t, "PostHandoff", err, newWriterSink())
		})
	}
	t.Run("refused", func(t *testing.T) {
		u, _ := url.Parse(refusedURL(t))
		endpoint := fmt.Sprintf("http://user:%s@%s/?key=%s", urlPassword, u.Host, urlQueryKey)
		err := newClient(t, cfg).Forward(context.Background(), endpoint, "a", []byte(agentBody), header, newWriterSink())
		if err == nil {
			t.Fatal("no failure")
		}
		check(t, "Forward", err, newWriterSink())
		if !strings.Contains(err.Error(), "key=REDACTED") {
			t.Errorf("the redacted endpoint is not shown: %v", err)
		}
	})
}
