// Package tracing is the OpenTelemetry tracer of the gateway: an
// observe.Observer that makes a span per request (continuing the trace of
// an inbound W3C traceparent), with child spans for decoding the context,
// rendering the prompt, the call to the model (with the GenAI semantic
// convention's attributes), each plan step, tool call, git operation and
// hand-off, and that injects the current span's traceparent into the
// gateway's outgoing requests.
//
// It keeps no global OpenTelemetry state: a Tracer holds its own
// TracerProvider and propagator. FromEnv builds one from the standard
// OTEL_* environment variables; tracing is off unless they ask for it.
package tracing

import (
	"context"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentgw/agentgw/internal/runes"
	"github.com/agentgw/agentgw/observe"
)

// ScopeName is the instrumentation scope of the gateway's spans.
const ScopeName = "github.com/agentgw/agentgw"

// Attribute keys: the GenAI semantic convention's (no longer in the
// semconv package the SDK uses) and the gateway's own.
const (
	keyGenAIOperation     = attribute.Key("gen_ai.operation.name")
	keyGenAIRequestModel  = attribute.Key("gen_ai.request.model")
	keyGenAIResponseModel = attribute.Key("gen_ai.response.model")
	keyGenAIInputTokens   = attribute.Key("gen_ai.usage.input_tokens")
	keyGenAIOutputTokens  = attribute.Key("gen_ai.usage.output_tokens")
	keyGenAIFinish        = attribute.Key("gen_ai.response.finish_reasons")
	keyGenAIAgentName     = attribute.Key("gen_ai.agent.name")
	keyGenAIToolName      = attribute.Key("gen_ai.tool.name")
	keyGenAIToolCallID    = attribute.Key("gen_ai.tool.call.id")
	keyGenAIToolType      = attribute.Key("gen_ai.tool.type")

	keySource         = attribute.Key("agentgw.source")
	keyRequestID      = attribute.Key("agentgw.request.id")
	keyAgent          = attribute.Key("agentgw.agent")
	keyCommand        = attribute.Key("agentgw.command")
	keyAgentLoaded    = attribute.Key("agentgw.agent.loaded")
	keyOutcome        = attribute.Key("agentgw.outcome")
	keyPhase          = attribute.Key("agentgw.phase")
	keyStream         = attribute.Key("agentgw.upstream.stream")
	keyMessages       = attribute.Key("agentgw.upstream.messages")
	keyAttempts       = attribute.Key("agentgw.upstream.attempts")
	keyChunks         = attribute.Key("agentgw.upstream.chunks")
	keyUsageEstimated = attribute.Key("agentgw.usage.estimated")
	keyStepID         = attribute.Key("agentgw.step.id")
	keyStepKind       = attribute.Key("agentgw.step.kind")
	keyStatus         = attribute.Key("agentgw.status")
	keyToolRuntime    = attribute.Key("agentgw.tool.runtime")
	keyGitOperation   = attribute.Key("agentgw.git.operation")
	keyGitRepo        = attribute.Key("agentgw.git.repo")
	keyHandoffType    = attribute.Key("agentgw.handoff.type")
	keyHandoffTo      = attribute.Key("agentgw.handoff.to")
	keyPauseKind      = attribute.Key("agentgw.pause.kind")
	keyErrorCode      = attribute.Key("agentgw.error.code")
	keyErrorType      = semconv.ErrorTypeKey
	keyHTTPStatus     = semconv.HTTPResponseStatusCodeKey
	keyHTTPMethod     = semconv.HTTPRequestMethodKey
	keyHTTPBodySize   = semconv.HTTPResponseBodySizeKey
)

// Names of operations, events, spans, and the statuses that fail a step
// or a tool call.
const (
	opChat            = "chat"
	opExecuteTool     = "execute_tool"
	toolTypeFunction  = "function"
	eventFirstByte    = "first_byte"
	eventFirstChunk   = "first_chunk"
	eventPaused       = "paused"
	eventErrorFrame   = "error_frame"
	spanDecode        = "decode context"
	spanPrompt        = "render prompt"
	stepStatusFailed  = "FAILED"
	stepStatusTimeout = "TIMEOUT"
	toolStatusError   = "ERROR"
	toolStatusTimeout = "TIMEOUT"
)

// Tracer is an observe.Observer making spans with its own tracer and
// propagator.
type Tracer struct {
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
}

var _ observe.Observer = (*Tracer)(nil)

// New returns a Tracer making spans with tp and reading and writing
// trace headers with prop; a nil prop is the W3C TraceContext propagator.
func New(tp trace.TracerProvider, prop propagation.TextMapPropagator, version string) *Tracer {
	if prop == nil {
		prop = propagation.TraceContext{}
	}
	return &Tracer{tracer: tp.Tracer(ScopeName, trace.WithInstrumentationVersion(version)), prop: prop}
}

// Begin implements observe.Observer: it starts the request's span, a
// child of the inbound traceparent when there is one (or of the span ctx
// already carries: a run started inside another).
func (t *Tracer) Begin(ctx context.Context, r *observe.Request) (context.Context, observe.Run) {
	if r.Header != nil {
		ctx = t.prop.Extract(ctx, propagation.HeaderCarrier(r.Header))
	}
	kind := trace.SpanKindInternal
	switch r.Source {
	case observe.SourceHTTP:
		kind = trace.SpanKindServer
	case observe.SourceHandoff:
		kind = trace.SpanKindConsumer
	}
	attrs := []attribute.KeyValue{str(keySource, r.Source)}
	if r.Method != "" {
		attrs = append(attrs, str(keyHTTPMethod, r.Method))
	}
	if r.Route != "" {
		attrs = append(attrs, semconv.HTTPRoute(r.Route))
	}
	if r.Path != "" {
		attrs = append(attrs, str(semconv.URLPathKey, r.Path))
	}
	if r.Remote != "" {
		attrs = append(attrs, semconv.ClientAddress(r.Remote))
	}
	if r.RequestID != "" {
		attrs = append(attrs, str(keyRequestID, r.RequestID))
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(kind), trace.WithAttributes(attrs...)}
	start := r.Start
	if !start.IsZero() {
		opts = append(opts, trace.WithTimestamp(start))
	} else {
		start = time.Now()
	}
	ctx, span := t.tracer.Start(ctx, requestName(r), opts...)
	return ctx, &run{t: t, span: span, start: start}
}

// requestName is the request span's name before it is routed: the HTTP
// method and route ("POST /agents/:name"), or the source off HTTP.
func requestName(r *observe.Request) string {
	switch {
	case r.Method != "" && r.Route != "":
		return clip(r.Method) + " " + r.Route
	case r.Method != "":
		return clip(r.Method)
	case r.Source != "":
		return r.Source
	}
	return "request"
}

// maxValue bounds the strings put on spans: a client's string of any
// length (a path, a request-defined agent's names, a model) costs a span
// this much.
const maxValue = 256

// clip clips s to maxValue bytes, saying how long it was.
func clip(s string) string { return runes.Clip(s, maxValue) }

// str is the attribute k of the value s, clipped.
func str(k attribute.Key, s string) attribute.KeyValue { return k.String(clip(s)) }

// run is one request's span and the child spans it starts.
type run struct {
	t     *Tracer
	span  trace.Span
	start time.Time
}

// parent returns ctx, carrying the request's span when ctx carries no
// span of its own (a caller that went on from a context not derived from
// the one Begin returned).
func (x *run) parent(ctx context.Context) context.Context {
	if trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	return trace.ContextWithSpan(ctx, x.span)
}

func (x *run) child(ctx context.Context, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	return x.t.tracer.Start(x.parent(ctx), name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
}

// Routed names the span after the agent and command, when they are a
// loaded agent's (a request-defined agent's names are the client's: they
// stay attributes, out of the span name).
func (x *run) Routed(agent, command string, loaded bool) {
	x.span.SetAttributes(str(keyAgent, agent), str(keyCommand, command), keyAgentLoaded.Bool(loaded), str(keyGenAIAgentName, agent))
	if loaded {
		x.span.SetName("agent " + agent + "/" + command)
	}
}

// Phase starts the span of decoding the context or rendering the prompt.
func (x *run) Phase(ctx context.Context, name string) (context.Context, func(error)) {
	span := name
	switch name {
	case observe.PhaseDecode:
		span = spanDecode
	case observe.PhasePrompt:
		span = spanPrompt
	}
	ctx, s := x.child(ctx, span, trace.SpanKindInternal, str(keyPhase, name))
	return ctx, func(err error) { endErr(s, err) }
}

// endErr ends s, with an error status when err is not nil.
func endErr(s trace.Span, err error) {
	if err != nil {
		s.RecordError(err)
		s.SetStatus(codes.Error, err.Error())
	}
	s.End()
}

// Upstream starts the span of a call to the model, named and attributed
// by the GenAI semantic convention ("chat MODEL", a client span).
func (x *run) Upstream(ctx context.Context, u observe.Upstream) (context.Context, func(observe.UpstreamResult)) {
	name := opChat
	if u.Model != "" {
		name += " " + clip(u.Model)
	}
	start := time.Now()
	ctx, s := x.child(ctx, name, trace.SpanKindClient,
		str(keyGenAIOperation, opChat), str(keyGenAIRequestModel, u.Model),
		keyStream.Bool(u.Stream), keyMessages.Int(u.Messages))
	return ctx, func(res observe.UpstreamResult) {
		attrs := []attribute.KeyValue{
			keyAttempts.Int(res.Attempts), keyChunks.Int(res.Chunks),
			keyGenAIInputTokens.Int(res.Usage.In), keyGenAIOutputTokens.Int(res.Usage.Out),
			keyUsageEstimated.Bool(res.Usage.Estimated),
		}
		if res.Model != "" {
			attrs = append(attrs, str(keyGenAIResponseModel, res.Model))
		}
		if res.Status != 0 {
			attrs = append(attrs, keyHTTPStatus.Int(res.Status))
		}
		if res.FinishReason != "" {
			attrs = append(attrs, keyGenAIFinish.StringSlice([]string{clip(res.FinishReason)}))
		}
		s.SetAttributes(attrs...)
		if res.FirstByte > 0 {
			s.AddEvent(eventFirstChunk, trace.WithTimestamp(start.Add(res.FirstByte)))
		}
		failed(s, res.Code)
		s.End()
	}
}

// failed marks s failed with the error code, when there is one.
func failed(s trace.Span, code string) {
	if code == "" {
		return
	}
	s.SetAttributes(str(keyErrorType, code))
	s.SetStatus(codes.Error, code)
}

// Step starts the span of a plan step's attempt.
func (x *run) Step(ctx context.Context, st observe.Step) (context.Context, func(observe.StepResult)) {
	ctx, s := x.child(ctx, "step "+clip(st.ID), trace.SpanKindInternal, str(keyStepID, st.ID), str(keyStepKind, st.Kind))
	return ctx, func(res observe.StepResult) {
		s.SetAttributes(str(keyStatus, res.Status))
		code := res.Code
		if code == "" && (res.Status == stepStatusFailed || res.Status == stepStatusTimeout) {
			code = res.Status
		}
		failed(s, code)
		s.End()
	}
}

// Tool starts the span of a tool call ("execute_tool NAME").
func (x *run) Tool(ctx context.Context, t observe.Tool) (context.Context, func(observe.ToolResult)) {
	attrs := []attribute.KeyValue{
		str(keyGenAIOperation, opExecuteTool), str(keyGenAIToolName, t.Name),
		str(keyGenAIToolType, toolTypeFunction), str(keyToolRuntime, t.Runtime),
	}
	if t.CallID != "" {
		attrs = append(attrs, str(keyGenAIToolCallID, t.CallID))
	}
	ctx, s := x.child(ctx, opExecuteTool+" "+t.Name, trace.SpanKindInternal, attrs...)
	return ctx, func(res observe.ToolResult) {
		s.SetAttributes(str(keyStatus, res.Status))
		code := res.Code
		if code == "" && (res.Status == toolStatusError || res.Status == toolStatusTimeout) {
			code = res.Status
		}
		failed(s, code)
		s.End()
	}
}

// Git starts the span of a git operation ("git fetch").
func (x *run) Git(ctx context.Context, op, repo string) (context.Context, func(error)) {
	ctx, s := x.child(ctx, "git "+op, trace.SpanKindClient, str(keyGitOperation, op), str(keyGitRepo, repo))
	return ctx, func(err error) { endErr(s, err) }
}

// Handoff starts the span of sending a hand-off message, a producer span.
func (x *run) Handoff(ctx context.Context, h observe.Handoff) (context.Context, func(error)) {
	ctx, s := x.child(ctx, "handoff "+h.Type, trace.SpanKindProducer, str(keyHandoffType, h.Type), str(keyHandoffTo, h.To))
	return ctx, func(err error) { endErr(s, err) }
}

// Paused adds a "paused" event to the request's span.
func (x *run) Paused(kind string) {
	x.span.AddEvent(eventPaused, trace.WithAttributes(str(keyPauseKind, kind)))
}

// Failed adds an "error_frame" event to the request's span.
func (x *run) Failed(code string) {
	x.span.AddEvent(eventErrorFrame, trace.WithAttributes(str(keyErrorCode, code)))
}

// Inject writes the traceparent (and tracestate) of the span ctx carries,
// or of the request's span, into h.
func (x *run) Inject(ctx context.Context, h http.Header) {
	x.t.prop.Inject(x.parent(ctx), propagation.HeaderCarrier(h))
}

// End ends the request's span with the outcome: the HTTP status, the
// first byte as an event, an error status for an error that is not the
// client's (a 4xx answer is the client's; semantic conventions leave a
// server span's status unset for it).
func (x *run) End(o observe.Outcome) {
	attrs := []attribute.KeyValue{str(keyOutcome, o.Result)}
	if o.Status != 0 {
		attrs = append(attrs, keyHTTPStatus.Int(o.Status))
	}
	if o.Bytes > 0 {
		attrs = append(attrs, keyHTTPBodySize.Int64(o.Bytes))
	}
	if o.Code != "" {
		attrs = append(attrs, str(keyErrorType, o.Code))
	}
	x.span.SetAttributes(attrs...)
	if o.TTFB > 0 {
		x.span.AddEvent(eventFirstByte, trace.WithTimestamp(x.start.Add(o.TTFB)))
	}
	if o.Result == observe.ResultError && (o.Status < 400 || o.Status >= 500) {
		x.span.SetStatus(codes.Error, o.Code)
	}
	end := []trace.SpanEndOption{}
	if o.Duration > 0 {
		end = append(end, trace.WithTimestamp(x.start.Add(o.Duration)))
	}
	x.span.End(end...)
}
