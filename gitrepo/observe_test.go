package gitrepo

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/observe/observetest"
)

// TestSyncObserved: the clone a request waits for is reported to its
// observers as a git sync of the repository; a cached one is not.
func TestSyncObserved(t *testing.T) {
	f := newFixture(t)
	m, _, _ := newManager(t, time.Hour, RepoConfig{Name: "app", URL: f.url()})
	rec := &observetest.Recorder{}
	ctx, w := observe.Observers{rec}.Begin(context.Background(), &observe.Request{Source: observe.SourceInternal})
	for range 2 {
		if _, err := m.Repo(ctx, "app"); err != nil {
			t.Fatal(err)
		}
	}
	w.End(observe.Outcome{})
	want := "begin internal |git sync app|git sync end err=<nil>|end ok code= status=0"
	if got := strings.Join(rec.Events(), "|"); got != want {
		t.Errorf("events %s\nwant %s", got, want)
	}
}
