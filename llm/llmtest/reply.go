package llmtest

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// A Reply is how the fake answers one request: it runs Before (pauses,
// waits), writes the status and headers, then either runs Events (a
// stream) or writes Body. A request with "stream": false gets NonStream
// instead when it is set. Handler, when set, answers instead of all that
// (the request is still recorded and released with the model).
type Reply struct {
	// Status is the HTTP status; 0 means 200.
	Status int
	// Header is set on the response. Content-Type defaults to
	// text/event-stream when there are Events, else application/json.
	Header http.Header
	// Before runs before the headers are written.
	Before []Event
	// Events are the stream, written and flushed one by one.
	Events []Event
	// Body is written as is when there are no Events.
	Body string
	// NonStream answers a request that does not stream, when set.
	NonStream *Reply
	// Handler answers the request instead, when set.
	Handler http.HandlerFunc
}

// Event is a step of a reply: bytes to write (then flushed), a pause, a
// wait, or the end of the connection.
type Event struct {
	write string
	sleep time.Duration
	gate  *Gate
	stall bool
	abort bool
}

// Data is the event that writes the frame "data: " + data + "\n\n".
func Data(data string) Event { return Event{write: Frame(data)} }

// Raw is the event that writes s exactly as given.
func Raw(s string) Event { return Event{write: s} }

// DoneEvent is the event that writes the [DONE] frame.
func DoneEvent() Event { return Event{write: Done} }

// Sleep is the event that pauses for d (or until the request ends).
func Sleep(d time.Duration) Event { return Event{sleep: d} }

// Wait is the event that blocks until g is released, the request ends or
// the model is released.
func Wait(g *Gate) Event { return Event{gate: g} }

// Stall is the event that blocks until the request ends (the client went
// away) or the model is released.
func Stall() Event { return Event{stall: true} }

// Abort is the event that cuts the connection without ending the response
// (http.ErrAbortHandler): the client reads an unexpected EOF.
func Abort() Event { return Event{abort: true} }

// Stream is a 200 event stream of the events, as given (none: an empty
// stream): add DoneEvent to end it properly.
func Stream(events ...Event) Reply {
	return Reply{Header: http.Header{"Content-Type": {"text/event-stream"}}, Events: events}
}

// Frames is a 200 event stream of a frame for each data, then [DONE].
func Frames(data ...string) Reply {
	events := make([]Event, 0, len(data)+1)
	for _, d := range data {
		events = append(events, Data(d))
	}
	return Stream(append(events, DoneEvent())...)
}

// Text is an answer streamed as text chunks, one per string, that ends
// with finish reason "stop" and [DONE]; to a request that does not stream
// it is a chat.completion with the text joined.
func Text(chunks ...string) Reply { return Answer{Text: chunks}.Reply() }

// Calls is an answer that calls tools: each call in its own chunk, finish
// reason "tool_calls".
func Calls(calls ...ToolCall) Reply { return Answer{Calls: calls}.Reply() }

// JSON is a reply with the status and the body as is (Content-Type
// application/json).
func JSON(status int, body string) Reply { return Reply{Status: status, Body: body} }

// Error is an HTTP error whose body is an OpenAI error with the message.
func Error(status int, message string) Reply { return JSON(status, ErrorBody(message)) }

// Handle is a reply written by h, for what the other replies cannot say.
func Handle(h http.HandlerFunc) Reply { return Reply{Handler: h} }

// Replay serves the recorded stream in the file at path: its events (a
// blank line ends each) written and flushed one by one, as a live upstream
// does. It fails t if the file cannot be read.
func Replay(t testing.TB, path string) Reply {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("llmtest: reading the recording: %v", err)
	}
	var events []Event
	for _, ev := range SplitEvents(string(data)) {
		events = append(events, Raw(ev))
	}
	return Stream(events...)
}

// SplitEvents splits a recorded stream into its events: each ends after
// a blank line ("\n" or "\r\n" alone), the last with the file. The bytes
// are kept as they are, line ends included.
func SplitEvents(data string) []string {
	var out []string
	start := 0
	for i := 0; i < len(data); {
		end := strings.IndexByte(data[i:], '\n')
		if end < 0 {
			break
		}
		line := data[i : i+end+1]
		i += end + 1
		if line == "\n" || line == "\r\n" {
			out = append(out, data[start:i])
			start = i
		}
	}
	if start < len(data) {
		out = append(out, data[start:])
	}
	return out
}

// Delay returns r that waits d before writing its headers.
func (r Reply) Delay(d time.Duration) Reply {
	r.Before = append(append([]Event(nil), r.Before...), Sleep(d))
	return r
}

// Hold returns r that waits at g before writing its headers.
func (r Reply) Hold(g *Gate) Reply {
	r.Before = append(append([]Event(nil), r.Before...), Wait(g))
	return r
}

// Then returns r with the events added after its stream.
func (r Reply) Then(events ...Event) Reply {
	r.Events = append(append([]Event(nil), r.Events...), events...)
	return r
}

// Truncated returns r whose stream ends without [DONE] (and without any
// event after it).
func (r Reply) Truncated() Reply {
	var out []Event
	for _, e := range r.Events {
		if e.write == Done {
			break
		}
		out = append(out, e)
	}
	r.Events, r.NonStream = out, nil
	return r
}

// Cut returns r whose stream stops after its first n bytes, in the middle
// of a frame if that is where the n-th byte is; the pauses before the cut
// are kept.
func (r Reply) Cut(n int) Reply {
	var out []Event
	for _, e := range r.Events {
		if n <= 0 {
			break
		}
		if e.write != "" {
			if len(e.write) > n {
				e.write = e.write[:n]
			}
			n -= len(e.write)
		}
		out = append(out, e)
	}
	r.Events, r.NonStream = out, nil
	return r
}

// Answer is a model's answer: text chunks, then tool calls, the finish
// reason and usage. Its Reply streams it, or answers a chat.completion to
// a request that does not stream.
type Answer struct {
	// Model is named in the chunks; "" means DefaultModel.
	Model string
	// Text is streamed a chunk per string.
	Text []string
	// Calls are streamed a chunk per call, after the text.
	Calls []ToolCall
	// Finish is the finish reason: "" means "tool_calls" when there are
	// calls, else "stop".
	Finish string
	// Usage, when set, is a usage-only chunk after the finish (and the
	// usage of the chat.completion).
	Usage *Usage
	// Pace is the pause between two chunks.
	Pace time.Duration
}

func (a Answer) finish() string {
	switch {
	case a.Finish != "":
		return a.Finish
	case len(a.Calls) > 0:
		return "tool_calls"
	}
	return "stop"
}

// Chunks are the data of the answer's chunks, [DONE] not included.
func (a Answer) Chunks() []string {
	var out []string
	for _, s := range a.Text {
		out = append(out, deltaChunk(a.Model, wireDelta{Content: &s}, ""))
	}
	for i, c := range a.Calls {
		out = append(out, deltaChunk(a.Model, wireDelta{ToolCalls: []wireToolCall{{Index: &i, ID: c.ID, Type: "function",
			Function: wireFunction{Name: c.Name, Arguments: c.Arguments}}}}, ""))
	}
	out = append(out, deltaChunk(a.Model, wireDelta{}, a.finish()))
	if a.Usage != nil {
		u := *a.Usage
		out = append(out, encode(wireChunk{ID: ID, Object: "chat.completion.chunk", Created: Created, Model: orDefault(a.Model),
			Choices: []wireChoice{}, Usage: &u}))
	}
	return out
}

// Completion is the answer as a chat.completion (JSON).
func (a Answer) Completion() string {
	type message struct {
		Role      string         `json:"role"`
		Content   *string        `json:"content"`
		ToolCalls []wireToolCall `json:"tool_calls,omitempty"`
	}
	type choice struct {
		Index        int     `json:"index"`
		Message      message `json:"message"`
		FinishReason string  `json:"finish_reason"`
	}
	msg := message{Role: "assistant"}
	if text := strings.Join(a.Text, ""); text != "" || len(a.Calls) == 0 {
		msg.Content = &text
	}
	for _, c := range a.Calls {
		msg.ToolCalls = append(msg.ToolCalls, wireToolCall{ID: c.ID, Type: "function", Function: wireFunction{Name: c.Name, Arguments: c.Arguments}})
	}
	return encode(struct {
		ID      string   `json:"id"`
		Object  string   `json:"object"`
		Created int64    `json:"created"`
		Model   string   `json:"model"`
		Choices []choice `json:"choices"`
		Usage   *Usage   `json:"usage,omitempty"`
	}{ID, "chat.completion", Created, orDefault(a.Model), []choice{{Message: msg, FinishReason: a.finish()}}, a.Usage})
}

// Reply is the answer as a reply.
func (a Answer) Reply() Reply {
	var events []Event
	for i, d := range a.Chunks() {
		if i > 0 && a.Pace > 0 {
			events = append(events, Sleep(a.Pace))
		}
		events = append(events, Data(d))
	}
	events = append(events, DoneEvent())
	return Reply{Events: events, NonStream: &Reply{Body: a.Completion()}}
}
