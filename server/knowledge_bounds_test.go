package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/contextvars"
	"github.com/agentgw/agentgw/server"
)

// blockingKnowledge is a knowledge base whose search runs until its
// context is done, and says so.
type blockingKnowledge struct {
	started, stopped chan struct{}
}

func (k *blockingKnowledge) List(context.Context) ([]server.KnowledgeBase, error) { return nil, nil }

func (k *blockingKnowledge) Search(ctx context.Context, _ string, _ server.SearchQuery) ([]contextvars.Reference, error) {
	close(k.started)
	<-ctx.Done()
	close(k.stopped)
	return nil, ctx.Err()
}

// TestKnowledgeSearchStopsWithClient: the search of POST
// /knowledge-bases/{id}/search runs on the request's context, so a client
// that disconnects (on a real loopback connection) ends it; the index
// stops there (index.TestSearchStopsWhenCancelled).
func TestKnowledgeSearchStopsWithClient(t *testing.T) {
	t.Parallel()
	k := &blockingKnowledge{started: make(chan struct{}), stopped: make(chan struct{})}
	gw := newGateway(t, withServer(func(c *server.Config) { c.Knowledge = k }))
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, gw.URL+"/knowledge-bases/kb/search",
		strings.NewReader(`{"query":"x","paths":["*a*a*a*b"]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_ = resp.Body.Close()
		}
	}()
	<-k.started
	cancel() // the client leaves
	select {
	case <-k.stopped:
	case <-time.After(30 * time.Second): // a hang guard, not a timing assertion
		t.Fatal("the search went on after the client left")
	}
	<-done
}

// TestNoKnowledgeBases: a gateway with no knowledge bases answers GET
// /knowledge-bases with an empty list (200), not "no such endpoint", and a
// search of any id is NOT_FOUND in the protocol's error shape, naming the
// id.
func TestNoKnowledgeBases(t *testing.T) {
	t.Parallel()
	gw := newGateway(t) // no Knowledge
	r := get(t, gw.URL+"/knowledge-bases")
	if r.status != http.StatusOK || string(r.body) != `{"knowledgeBases":[]}`+"\n" {
		t.Fatalf("GET /knowledge-bases: %d %s, want 200 {\"knowledgeBases\":[]}", r.status, r.body)
	}
	c := errorResponse(t, post(t, gw.URL+"/knowledge-bases/docs/search", `{"query":"x"}`), http.StatusNotFound, apierr.CodeNotFound)
	if !strings.Contains(c.Message, `"docs"`) || c.Message == "no such endpoint" {
		t.Errorf("message %q, want the unknown id", c.Message)
	}
}
