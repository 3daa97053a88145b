package emit

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/sse"
)

// Emitter receives everything a run shows the user, in order. The SSE writer
// is one implementation, the in-memory Recorder another.
type Emitter interface {
	// Text sends model-free text.
	Text(content string) error
	// Chunk relays one upstream chat.completion.chunk JSON object.
	Chunk(raw []byte) error
	// Action sends a confirm or tree action.
	Action(a *actions.Action) error
	// Error reports a failure inside the stream.
	Error(e *apierr.Error) error
	// ToolCall asks the IDE to run a frontend tool.
	ToolCall(f *ToolCallFrame) error
	// End finishes the response; it is called exactly once per run.
	End() error
}

var (
	_ Emitter       = (*SSEEmitter)(nil)
	_ Emitter       = (*Recorder)(nil)
	_ llm.BatchSink = (*SSEEmitter)(nil)
)

// SSE event names.
const (
	EventAction = "copilot_action"
	EventError  = "copilot_error"
)

// SSEEmitter writes a run to a Server-Sent-Events stream.
type SSEEmitter struct {
	w         *sse.Writer
	requestID string
	// failed is set once an error frame was written: the final chunk then
	// says finish_reason "error" instead of "stop".
	failed atomic.Bool
}

// NewSSEEmitter returns an emitter writing to w; requestID goes into error frames.
func NewSSEEmitter(w *sse.Writer, requestID string) *SSEEmitter {
	return &SSEEmitter{w: w, requestID: requestID}
}

// Text implements Emitter.
func (e *SSEEmitter) Text(content string) error { return e.w.Text(content) }

// Chunk implements Emitter.
func (e *SSEEmitter) Chunk(raw []byte) error { return e.w.Chunk(raw) }

// BufferChunk relays a chunk without flushing it: with Flush it makes the
// emitter an llm.BatchSink, so chunks that arrived together leave together.
func (e *SSEEmitter) BufferChunk(raw []byte) error { return e.w.BufferChunk(raw) }

// Flush sends what BufferChunk held.
func (e *SSEEmitter) Flush() error { return e.w.Flush() }

// Action implements Emitter.
func (e *SSEEmitter) Action(a *actions.Action) error {
	// MarshalJSON directly: json.Marshal would validate its output again.
	data, err := a.MarshalJSON()
	if err != nil {
		return fmt.Errorf("encoding action: %w", err)
	}
	return e.w.Event(EventAction, data)
}

// Error implements Emitter.
func (e *SSEEmitter) Error(er *apierr.Error) error {
	data, err := json.Marshal(ErrorFrame(er, e.requestID))
	if err != nil {
		return fmt.Errorf("encoding error frame: %w", err)
	}
	if err := e.w.Event(EventError, data); err != nil {
		return err
	}
	e.failed.Store(true)
	return nil
}

// ToolCall implements Emitter.
func (e *SSEEmitter) ToolCall(f *ToolCallFrame) error {
	data, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("encoding tool call: %w", err)
	}
	return e.w.Event(EventToolCall, data)
}

// End implements Emitter: the final chunk's finish_reason is "stop", or
// "error" when an error frame was written.
func (e *SSEEmitter) End() error {
	if e.failed.Load() {
		return e.w.EndWith(sse.FinishError)
	}
	return e.w.End()
}

// ErrorFrameData is the data of a copilot_error frame (docs/protocol.md
// §4): every field but UpstreamStatus is always present.
type ErrorFrameData struct {
	ErrorCode       string `json:"errorCode"`
	Message         string `json:"message"`
	Recoverable     bool   `json:"recoverable"`
	SuggestedAction string `json:"suggestedAction"`
	RequestID       string `json:"requestId"`
	// Source is client, server or upstream, as in the ERROR_RESPONSE
	// before the stream.
	Source string `json:"source"`
	// UpstreamStatus is the model platform's HTTP status, for an
	// UPSTREAM_ERROR that had one.
	UpstreamStatus int `json:"upstreamStatus,omitempty"`
}

// ErrorFrame is the copilot_error data for e: the one place an error frame
// is built, so that no path can leave out its suggested action (the code's
// default when e has none, see Error.Suggestion) or its source.
func ErrorFrame(e *apierr.Error, requestID string) ErrorFrameData {
	return ErrorFrameData{ErrorCode: e.Code, Message: e.Message, Recoverable: e.Recoverable,
		SuggestedAction: e.Suggestion(), RequestID: requestID, Source: e.Origin(), UpstreamStatus: e.UpstreamStatus}
}

// Frame is one thing a Recorder received.
type Frame struct {
	Kind     string // "text", "chunk", "action", "error", "toolcall" or "end"
	Text     string // text, or the content of a relayed chunk
	Raw      []byte // a relayed chunk as received
	Action   *actions.Action
	Error    *apierr.Error
	ToolCall *ToolCallFrame
}

// Recorder is an Emitter that keeps frames in memory, for tests and for
// runs whose output is captured rather than streamed.
type Recorder struct {
	mu     sync.Mutex
	frames []Frame
}

func (r *Recorder) add(f Frame) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.frames = append(r.frames, f)
	return nil
}

// Text implements Emitter.
func (r *Recorder) Text(content string) error { return r.add(Frame{Kind: "text", Text: content}) }

// Chunk implements Emitter.
func (r *Recorder) Chunk(raw []byte) error {
	return r.add(Frame{Kind: "chunk", Raw: append([]byte(nil), raw...), Text: llm.ChunkText(raw)})
}

// Action implements Emitter.
func (r *Recorder) Action(a *actions.Action) error { return r.add(Frame{Kind: "action", Action: a}) }

// Error implements Emitter.
func (r *Recorder) Error(e *apierr.Error) error { return r.add(Frame{Kind: "error", Error: e}) }

// ToolCall implements Emitter.
func (r *Recorder) ToolCall(f *ToolCallFrame) error {
	return r.add(Frame{Kind: "toolcall", ToolCall: f})
}

// End implements Emitter.
func (r *Recorder) End() error { return r.add(Frame{Kind: "end"}) }

// Frames returns a copy of what was received.
func (r *Recorder) Frames() []Frame {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Frame(nil), r.frames...)
}

// Err returns the error of the first error frame, nil when there is none.
func (r *Recorder) Err() *apierr.Error {
	for _, f := range r.Frames() {
		if f.Kind == "error" {
			return f.Error
		}
	}
	return nil
}

// Transcript is all text, model-free and relayed, in order.
func (r *Recorder) Transcript() string {
	var s string
	for _, f := range r.Frames() {
		s += f.Text
	}
	return s
}

// EventToolCall is the SSE event of a frontend tool call.
const EventToolCall = "copilot_tool_call"

// ToolCallFrame asks the IDE to run a frontend tool (seed 000 section 4.5):
// it answers with a feedback request carrying toolResults for callId.
type ToolCallFrame struct {
	CallID           string         `json:"callId"`
	Name             string         `json:"name"`
	Parameters       map[string]any `json:"parameters"`
	UserPrompt       string         `json:"userPrompt,omitempty"`
	FallbackBehavior string         `json:"fallbackBehavior,omitempty"`
}
