package agentrun

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgw/agentgw/schedule"
)

// TestWebhookAllowIsParsed is issue 24 item 6: a webhook that names the
// allowed server in its userinfo, or climbs out of the allowed path with
// dot segments, is refused and the other server is never called.
func TestWebhookAllowIsParsed(t *testing.T) {
	t.Parallel()
	var allowedCalls, internalCalls atomic.Int32
	allowed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/hooks/") {
			internalCalls.Add(1)
		}
		allowedCalls.Add(1)
	}))
	defer allowed.Close()
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { internalCalls.Add(1) }))
	defer internal.Close()
	allowHost := strings.TrimPrefix(allowed.URL, "http://")
	internalHost := strings.TrimPrefix(internal.URL, "http://")
	rs := &Runs{WebhookAllow: []string{allowed.URL + "/hooks"}}
	for _, hook := range []string{
		"http://" + allowHost + "@" + internalHost + "/hooks/x",
		"http://" + allowHost + "/hooks@" + internalHost + "/x",
		allowed.URL + "/hooks/../admin",
		allowed.URL + "/hooks/%2e%2e/admin",
		allowed.URL + "/hooksx",
	} {
		if Allowed(hook, rs.WebhookAllow) {
			t.Errorf("Allowed(%q) = true", hook)
		}
		err := rs.post(context.Background(), schedule.Schedule{Name: "x"}, time.Now(), &Target{Webhook: hook}, &Result{})
		if err == nil || !strings.Contains(err.Error(), "scheduler.webhookAllow") {
			t.Errorf("post to %q: %v, want a webhookAllow refusal", hook, err)
		}
	}
	if n := internalCalls.Load(); n != 0 {
		t.Fatalf("a server or path off the allow-list was called %d times", n)
	}
	res := &Result{}
	if err := rs.post(context.Background(), schedule.Schedule{Name: "x"}, time.Now(), &Target{Webhook: allowed.URL + "/hooks/done"}, res); err != nil || res.Webhook != http.StatusOK {
		t.Fatalf("post to the allowed hook: %v (status %d)", err, res.Webhook)
	}
	if allowedCalls.Load() != 1 {
		t.Fatalf("allowed server called %d times, want 1", allowedCalls.Load())
	}
}
