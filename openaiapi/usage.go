package openaiapi

import (
	"bytes"
	"context"
	"encoding/json"
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
	// finish is the finish reason of the last model call that gave one.
	finish string
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
		if res.FinishReason != "" {
			t.finish = res.FinishReason
		}
	}
}

// finishReason is the answer's finish reason: the last model call's
// ("stop", "length", ...), "stop" when no model gave one.
func (t *usageTap) finishReason() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.finish == "" {
		return "stop"
	}
	return t.finish
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

// maxUsageScan bounds what usageWriter keeps of a passed-through answer to
// find its usage: a non-streamed answer larger than that counts no tokens.
const maxUsageScan = 1 << 20

// usageWriter relays a passed-through answer and reads the upstream's
// usage from it: the "usage" member of a chat.completion, or of the last
// stream chunk that carries one (stream_options.include_usage).
type usageWriter struct {
	http.ResponseWriter
	stream bool
	buf    []byte
	over   bool
	usage  observe.Usage
	found  bool
}

// Unwrap lets http.ResponseController (the proxy's flushes) reach the
// writer underneath.
func (u *usageWriter) Unwrap() http.ResponseWriter { return u.ResponseWriter }

// Write implements http.ResponseWriter.
func (u *usageWriter) Write(p []byte) (int, error) {
	n, err := u.ResponseWriter.Write(p)
	if u.over {
		return n, err
	}
	u.buf = append(u.buf, p[:n]...)
	if u.stream {
		for {
			i := bytes.IndexByte(u.buf, '\n')
			if i < 0 {
				break
			}
			u.line(u.buf[:i])
			u.buf = u.buf[i+1:]
		}
	}
	if len(u.buf) > maxUsageScan {
		u.over, u.buf = true, nil
	}
	return n, err
}

// line reads the usage of one line of a stream.
func (u *usageWriter) line(l []byte) {
	data, ok := bytes.CutPrefix(bytes.TrimSpace(l), []byte("data:"))
	if ok && bytes.Contains(data, []byte(`"usage"`)) {
		u.read(data)
	}
}

// read takes the usage of one JSON object, if it has one.
func (u *usageWriter) read(data []byte) {
	var v struct {
		Usage *usage `json:"usage"`
	}
	if json.Unmarshal(bytes.TrimSpace(data), &v) == nil && v.Usage != nil {
		u.usage = observe.Usage{In: v.Usage.PromptTokens, Out: v.Usage.CompletionTokens}
		u.found = true
	}
}

// result is the usage of the answer relayed, ok false when it had none.
func (u *usageWriter) result() (observe.Usage, bool) {
	if !u.stream && !u.over {
		u.read(u.buf)
	}
	return u.usage, u.found
}
