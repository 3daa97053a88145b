package openaiapi

import (
	"context"
	"net/http"
	"sync"

	"github.com/agentgw/agentgw/observe"
)

// usageTap adds up the tokens of the model calls of one request, as the
// llm client reports them to the request's observers: the upstream's
// usage, or its estimate from the prompt it really sent.
type usageTap struct {
	observe.Nop
	mu    sync.Mutex
	calls int
	in    int
	out   int
}

// Begin implements observe.Observer, for a request no other observer
// watches.
func (t *usageTap) Begin(ctx context.Context, _ *observe.Request) (context.Context, observe.Run) {
	return ctx, t
}

// Upstream implements observe.Run.
func (t *usageTap) Upstream(ctx context.Context, _ observe.Upstream) (context.Context, func(observe.UpstreamResult)) {
	return ctx, func(res observe.UpstreamResult) {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.calls++
		t.in += res.Usage.In
		t.out += res.Usage.Out
	}
}

// Inject implements observe.Run: a tap adds no header.
func (t *usageTap) Inject(context.Context, http.Header) {}

// tapUsage returns ctx with t watching its request's model calls.
func tapUsage(ctx context.Context, t *usageTap) context.Context {
	if w := observe.From(ctx); w != nil {
		w.Also(t)
		return ctx
	}
	ctx, _ = observe.Observers{t}.Begin(ctx, &observe.Request{Source: observe.SourceHTTP})
	return ctx
}

// usage is what the tap counted, ok false when no model was called.
func (t *usageTap) usage() (u usage, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return usage{PromptTokens: t.in, CompletionTokens: t.out}, t.calls > 0
}
