package tracing

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentgw/agentgw/observe"
)

const (
	inboundTrace  = "0af7651916cd43dd8448eb211c80319c"
	inboundParent = "b7ad6b7169203331"
)

// newTestTracer returns a Tracer exporting to memory, synchronously.
func newTestTracer(t *testing.T, opts ...sdktrace.TracerProviderOption) (*Tracer, *tracetest.InMemoryExporter) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(append([]sdktrace.TracerProviderOption{sdktrace.WithSyncer(exp)}, opts...)...)
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return New(tp, nil, "v-test"), exp
}

func httpRequest(traceparent string) *observe.Request {
	h := http.Header{}
	if traceparent != "" {
		h.Set("Traceparent", traceparent)
	}
	return &observe.Request{
		Source: observe.SourceHTTP, Route: "/agents/:name", Method: "POST", Path: "/agents/coder",
		RequestID: "req-1", Remote: "127.0.0.1", Header: h, Start: time.Now(),
	}
}

// render draws the spans as a tree: each span's name, kind, status,
// attributes and events, its children indented under it, children in
// the order they started.
func render(spans tracetest.SpanStubs) string {
	children := map[trace.SpanID][]tracetest.SpanStub{}
	ids := map[trace.SpanID]bool{}
	for _, s := range spans {
		ids[s.SpanContext.SpanID()] = true
	}
	var roots []tracetest.SpanStub
	for _, s := range spans {
		if p := s.Parent.SpanID(); ids[p] {
			children[p] = append(children[p], s)
		} else {
			roots = append(roots, s)
		}
	}
	var b strings.Builder
	var draw func(s tracetest.SpanStub, depth int)
	draw = func(s tracetest.SpanStub, depth int) {
		in := strings.Repeat("  ", depth)
		fmt.Fprintf(&b, "%s%s [%s]", in, s.Name, s.SpanKind)
		if s.Status.Code != 0 {
			fmt.Fprintf(&b, " status=%s %q", s.Status.Code, s.Status.Description)
		}
		b.WriteString("\n")
		var attrs []string
		for _, kv := range s.Attributes {
			attrs = append(attrs, fmt.Sprintf("%s=%s", kv.Key, kv.Value.Emit()))
		}
		slices.Sort(attrs)
		for _, a := range attrs {
			fmt.Fprintf(&b, "%s  . %s\n", in, a)
		}
		for _, e := range s.Events {
			fmt.Fprintf(&b, "%s  ! %s", in, e.Name)
			for _, kv := range e.Attributes {
				fmt.Fprintf(&b, " %s=%s", kv.Key, kv.Value.Emit())
			}
			b.WriteString("\n")
		}
		kids := children[s.SpanContext.SpanID()]
		slices.SortStableFunc(kids, func(a, b tracetest.SpanStub) int { return a.StartTime.Compare(b.StartTime) })
		for _, c := range kids {
			draw(c, depth+1)
		}
	}
	for _, r := range roots {
		draw(r, 0)
	}
	return b.String()
}

// TestSpanTree plays a request's events through a Watch and checks the
// spans, their parents, names, attributes and statuses.
func TestSpanTree(t *testing.T) {
	tr, exp := newTestTracer(t)
	ctx, w := observe.Observers{tr}.Begin(context.Background(), httpRequest("00-"+inboundTrace+"-"+inboundParent+"-01"))
	w.Routed("coder", "explain", true)

	_, end := w.Phase(ctx, observe.PhaseDecode)
	end(nil)
	_, end = w.Phase(ctx, observe.PhasePrompt)
	end(errors.New("template: no such variable"))

	sctx, endStep := w.Step(ctx, observe.Step{ID: "search", Kind: "tool"})
	tctx, endTool := w.Tool(sctx, observe.Tool{Name: "web_search", Runtime: "http", CallID: "call_1"})
	toolHeader := http.Header{}
	observe.Inject(tctx, toolHeader)
	endTool(observe.ToolResult{Status: "SUCCESS"})
	endStep(observe.StepResult{Status: "COMPLETED"})

	sctx, endStep = w.Step(ctx, observe.Step{ID: "answer", Kind: "prompt"})
	uctx, endUp := w.Upstream(sctx, observe.Upstream{Model: "gpt-4o", Stream: true, Messages: 3})
	upHeader := http.Header{}
	observe.Inject(uctx, upHeader)
	endUp(observe.UpstreamResult{Model: "gpt-4o-2024-08-06", Status: 200, Attempts: 2, FirstByte: time.Millisecond,
		Chunks: 7, Usage: observe.Usage{In: 120, Out: 34}, FinishReason: "stop"})
	endStep(observe.StepResult{Status: "COMPLETED"})

	_, endStep = w.Step(ctx, observe.Step{ID: "slow", Kind: "http"})
	endStep(observe.StepResult{Status: "TIMEOUT"})

	_, endGit := w.Git(ctx, "fetch", "docs")
	endGit(nil)
	_, endHand := w.Handoff(ctx, observe.Handoff{Type: "review", To: "reviewer"})
	endHand(errors.New("queue full"))
	w.Paused(observe.PauseConsent)
	w.End(observe.Outcome{Status: 200, Bytes: 512, TTFB: 2 * time.Millisecond})

	spans := exp.GetSpans()
	want := `agent coder/explain [server]
  . agentgw.agent.loaded=true
  . agentgw.agent=coder
  . agentgw.command=explain
  . agentgw.outcome=paused
  . agentgw.request.id=req-1
  . agentgw.source=http
  . client.address=127.0.0.1
  . gen_ai.agent.name=coder
  . http.request.method=POST
  . http.response.body.size=512
  . http.response.status_code=200
  . http.route=/agents/:name
  . url.path=/agents/coder
  ! paused agentgw.pause.kind=consent
  ! first_byte
  decode context [internal]
    . agentgw.phase=decode
  render prompt [internal] status=Error "template: no such variable"
    . agentgw.phase=prompt
    ! exception exception.type=*errors.errorString exception.message=template: no such variable
  step search [internal]
    . agentgw.status=COMPLETED
    . agentgw.step.id=search
    . agentgw.step.kind=tool
    execute_tool web_search [internal]
      . agentgw.status=SUCCESS
      . agentgw.tool.runtime=http
      . gen_ai.operation.name=execute_tool
      . gen_ai.tool.call.id=call_1
      . gen_ai.tool.name=web_search
      . gen_ai.tool.type=function
  step answer [internal]
    . agentgw.status=COMPLETED
    . agentgw.step.id=answer
    . agentgw.step.kind=prompt
    chat gpt-4o [client]
      . agentgw.upstream.attempts=2
      . agentgw.upstream.chunks=7
      . agentgw.upstream.messages=3
      . agentgw.upstream.stream=true
      . agentgw.usage.estimated=false
      . gen_ai.operation.name=chat
      . gen_ai.request.model=gpt-4o
      . gen_ai.response.finish_reasons=["stop"]
      . gen_ai.response.model=gpt-4o-2024-08-06
      . gen_ai.usage.input_tokens=120
      . gen_ai.usage.output_tokens=34
      . http.response.status_code=200
      ! first_chunk
  step slow [internal] status=Error "TIMEOUT"
    . agentgw.status=TIMEOUT
    . agentgw.step.id=slow
    . agentgw.step.kind=http
    . error.type=TIMEOUT
  git fetch [client]
    . agentgw.git.operation=fetch
    . agentgw.git.repo=docs
  handoff review [producer] status=Error "queue full"
    . agentgw.handoff.to=reviewer
    . agentgw.handoff.type=review
    ! exception exception.type=*errors.errorString exception.message=queue full
`
	if got := render(spans); got != want {
		t.Errorf("span tree:\n%s\nwant:\n%s", got, want)
	}

	// Every span is of the inbound trace; the request's parent is the
	// inbound span, remote.
	for _, s := range spans {
		if got := s.SpanContext.TraceID().String(); got != inboundTrace {
			t.Errorf("%s: trace %s, want %s", s.Name, got, inboundTrace)
		}
	}
	root := find(t, spans, "agent coder/explain")
	if got := root.Parent.SpanID().String(); got != inboundParent || !root.Parent.IsRemote() {
		t.Errorf("request span's parent %s remote=%v, want %s remote", got, root.Parent.IsRemote(), inboundParent)
	}

	// Inject writes the traceparent of the span the context carries.
	for _, c := range []struct {
		span string
		h    http.Header
	}{{"execute_tool web_search", toolHeader}, {"chat gpt-4o", upHeader}} {
		s := find(t, spans, c.span)
		want := "00-" + inboundTrace + "-" + s.SpanContext.SpanID().String() + "-01"
		if got := c.h.Values("Traceparent"); len(got) != 1 || got[0] != want || len(c.h) != 1 {
			t.Errorf("%s: injected %v, want only traceparent %s", c.span, c.h, want)
		}
	}
}

func find(t *testing.T, spans tracetest.SpanStubs, name string) tracetest.SpanStub {
	t.Helper()
	for _, s := range spans {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no span %q", name)
	return tracetest.SpanStub{}
}

// TestTraceparent checks which trace a request's span joins and what
// Inject writes for it.
func TestTraceparent(t *testing.T) {
	for _, c := range []struct {
		name, in string
		// sampled is whether the span is recorded.
		sampled bool
		// keep is whether the inbound trace id is kept.
		keep bool
		// flags is the injected traceparent's flags.
		flags string
	}{
		{name: "none", in: "", sampled: true, flags: "01"},
		{name: "sampled", in: "00-" + inboundTrace + "-" + inboundParent + "-01", sampled: true, keep: true, flags: "01"},
		{name: "not sampled", in: "00-" + inboundTrace + "-" + inboundParent + "-00", keep: true, flags: "00"},
		{name: "malformed", in: "00-xyz-" + inboundParent + "-01", sampled: true, flags: "01"},
		{name: "zero trace", in: "00-00000000000000000000000000000000-" + inboundParent + "-01", sampled: true, flags: "01"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, exp := newTestTracer(t, sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.AlwaysSample())))
			ctx, run := tr.Begin(context.Background(), httpRequest(c.in))
			sc := trace.SpanContextFromContext(ctx)
			h := http.Header{}
			run.Inject(context.Background(), h) // a context without the span: the request's
			run.End(observe.Outcome{Result: observe.ResultOK, Status: 200})

			want := "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-" + c.flags
			if got := h.Get("Traceparent"); got != want {
				t.Errorf("injected %q, want %q", got, want)
			}
			if got := sc.TraceID().String() == inboundTrace; got != c.keep {
				t.Errorf("trace %s kept=%v, want %v", sc.TraceID(), got, c.keep)
			}
			if got := len(exp.GetSpans()); got != map[bool]int{true: 1}[c.sampled] {
				t.Errorf("%d spans exported, sampled=%v", got, c.sampled)
			}
		})
	}
}

// TestRequestSpan checks the request span's name and status by how the
// request went.
func TestRequestSpan(t *testing.T) {
	for _, c := range []struct {
		name   string
		req    observe.Request
		routed bool
		loaded bool
		out    observe.Outcome
		// want is the span's name and status.
		want string
	}{
		{name: "loaded agent", req: *httpRequest(""), routed: true, loaded: true,
			out: observe.Outcome{Result: observe.ResultOK, Status: 200}, want: "agent coder/explain Unset"},
		{name: "request-defined agent keeps the route", req: *httpRequest(""), routed: true,
			out: observe.Outcome{Result: observe.ResultOK, Status: 200}, want: "POST /agents/:name Unset"},
		{name: "client error is not the span's", req: *httpRequest(""),
			out: observe.Outcome{Result: observe.ResultError, Code: "BAD_REQUEST", Status: 400}, want: "POST /agents/:name Unset"},
		{name: "upstream error", req: *httpRequest(""), routed: true, loaded: true,
			out: observe.Outcome{Result: observe.ResultError, Code: "UPSTREAM_ERROR", Status: 502}, want: "agent coder/explain Error UPSTREAM_ERROR"},
		{name: "error frame in a 200 stream", req: *httpRequest(""), routed: true, loaded: true,
			out: observe.Outcome{Result: observe.ResultError, Code: "UPSTREAM_TIMEOUT", Status: 200}, want: "agent coder/explain Error UPSTREAM_TIMEOUT"},
		{name: "hand-off", req: observe.Request{Source: observe.SourceHandoff}, out: observe.Outcome{Result: observe.ResultOK}, want: "handoff Unset"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, exp := newTestTracer(t)
			_, run := tr.Begin(context.Background(), &c.req)
			if c.routed {
				run.Routed("coder", "explain", c.loaded)
			}
			run.End(c.out)
			spans := exp.GetSpans()
			if len(spans) != 1 {
				t.Fatalf("%d spans", len(spans))
			}
			got := strings.TrimSpace(spans[0].Name + " " + spans[0].Status.Code.String() + " " + spans[0].Status.Description)
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestNestedRun checks that a run begun inside another (an ask step
// running another agent) is a child of the span its context carries.
func TestNestedRun(t *testing.T) {
	tr, exp := newTestTracer(t)
	obs := observe.Observers{tr}
	ctx, w := obs.Begin(context.Background(), httpRequest(""))
	sctx, endStep := w.Step(ctx, observe.Step{ID: "ask", Kind: "ask"})
	_, inner := obs.Begin(sctx, &observe.Request{Source: observe.SourceInternal})
	inner.Routed("reviewer", "review", true)
	inner.End(observe.Outcome{})
	endStep(observe.StepResult{Status: "COMPLETED"})
	w.End(observe.Outcome{Status: 200})
	want := `POST /agents/:name [server]
  step ask [internal]
    agent reviewer/review [internal]
`
	var lines []string
	for l := range strings.Lines(render(exp.GetSpans())) {
		if t := strings.TrimSpace(l); !strings.HasPrefix(t, ".") && !strings.HasPrefix(t, "!") {
			lines = append(lines, l)
		}
	}
	if got := strings.Join(lines, ""); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestClientStringsClipped: what a client chose (a path, a request-defined
// agent's names, a model) is clipped on spans, saying how long it was.
func TestClientStringsClipped(t *testing.T) {
	tr, exp := newTestTracer(t)
	long := strings.Repeat("é", 600) // 1200 bytes
	req := httpRequest("")
	req.Path = "/agents/" + long
	ctx, w := observe.Observers{tr}.Begin(context.Background(), req)
	w.Routed(long, long, false)
	_, end := w.Upstream(ctx, observe.Upstream{Model: long})
	end(observe.UpstreamResult{Model: long})
	w.End(observe.Outcome{Status: 200})
	clipped := strings.Repeat("é", 128) + "…(1200 bytes)"
	want := map[string]string{
		"url.path": "/agents/" + strings.Repeat("é", 124) + "…(1208 bytes)", "agentgw.agent": clipped, "agentgw.command": clipped,
		"gen_ai.agent.name": clipped, "gen_ai.request.model": clipped, "gen_ai.response.model": clipped,
	}
	for _, s := range exp.GetSpans() {
		for _, kv := range s.Attributes {
			if w, ok := want[string(kv.Key)]; ok && kv.Value.AsString() != w {
				t.Errorf("%s %s = %q, want %q", s.Name, kv.Key, kv.Value.AsString(), w)
			}
		}
	}
	if s := find(t, exp.GetSpans(), "chat "+clipped); s.Name == "" {
		t.Error("no clipped chat span")
	}
}
