package remote

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/watchdog"
	"github.com/agentgw/agentgw/sse"
)

// SSE event names of the agent protocol.
const (
	EventAction = "copilot_action"
	EventError  = "copilot_error"
)

// forward is the state of one Forward call.
type forward struct {
	sink      Sink
	max       int
	agentName string
	// shown is the URL called, as it may be shown (Redacted).
	shown  string
	call   *call
	cancel context.CancelCauseFunc
	// ended is set by the terminator; complete by the remote's end chunk
	// (a finish_reason) or a copilot_error: the body may then end without
	// a terminator.
	ended, complete bool
	// what was passed on, for the log.
	chunks, actions, errors int
}

var (
	doneUpper = []byte("[DONE]")
	doneSeed  = []byte("[Done]")
	errorKey  = []byte(`"error"`)
)

// relay reads the remote's stream from body and passes it to the sink.
func (f *forward) relay(c *Client, body io.Reader, wd *watchdog.Watchdog) *apierr.Error {
	m := &meter{body: body, wd: wd, max: f.max}
	rd := c.readers.NewReader(m)
	defer c.readers.Release(rd) // sinks copy what they keep; errors hold strings
	for {
		ev, err := rd.Next()
		if err != nil {
			return f.end(err)
		}
		if m.frameDone(rd.Buffered()) > f.max {
			return f.end(errFrameTooLarge)
		}
		if e := f.event(ev.Name, bytes.TrimSpace(ev.Data)); e != nil || f.ended {
			return e
		}
		wd.Activity()
	}
}

// end is the outcome of a stream whose reading stopped with err.
func (f *forward) end(err error) *apierr.Error {
	switch {
	case errors.Is(err, errFrameTooLarge) || errors.Is(err, bufio.ErrTooLong):
		if f.call.ctx.Err() != nil {
			return canceled(context.Cause(f.call.ctx))
		}
		return f.call.protocolError(fmt.Sprintf("sent a frame larger than %d bytes", f.max))
	case !errors.Is(err, io.EOF):
		return f.call.fail(err, apierr.CodeUpstreamError, "the remote agent service's stream at "+f.shown+" broke")
	case f.complete:
		return nil
	case f.chunks+f.actions == 0:
		return f.call.protocolError("ended its stream without sending anything")
	}
	e := f.call.protocolError("ended its stream before the answer's end (no end chunk, no [DONE]): the answer is incomplete")
	e.Recoverable = true
	return e
}

// event handles one event of the remote's stream.
func (f *forward) event(name string, data []byte) *apierr.Error {
	switch name {
	case "", "message":
		return f.chunk(data)
	case EventAction:
		return f.action(data)
	case EventError:
		f.complete = true
		f.errors++
		return f.pass(f.sink.Error(f.call.frameError(data)))
	case "error":
		return f.call.remoteError(apierr.CodeUpstreamError, "the remote agent service's stream failed: "+bodyMessage(data), true).
			Suggest(suggestStatus)
	}
	return nil // an extension of the remote's
}

// chunk handles the data of an unnamed event: a chunk, the terminator, or
// an error object.
func (f *forward) chunk(data []byte) *apierr.Error {
	switch {
	case len(data) == 0:
		return nil
	case bytes.Equal(data, doneUpper) || bytes.Equal(data, doneSeed):
		f.ended = true
		return nil
	case bytes.Contains(data, errorKey):
		if v, ok := sse.Field(data, "error"); ok && string(v) != "null" {
			return f.call.remoteError(apierr.CodeUpstreamError, "the remote agent service's stream failed: "+bodyMessage(data), true).
				Suggest(suggestStatus)
		}
	}
	if hasFinishReason(data) {
		f.complete = true
		if isEndChunk(data) {
			return nil
		}
	}
	if err := f.sink.Chunk(data); err != nil {
		if errors.Is(err, sse.ErrMalformedChunk) {
			return f.call.protocolError("sent a chunk that is not a JSON object: " + apierr.Clip(string(data))).Wrap(f.call.cleanCause(err))
		}
		return f.sinkFailed(err)
	}
	f.chunks++
	return nil
}

// action decodes, validates and passes on a copilot_action.
func (f *forward) action(data []byte) *apierr.Error {
	a, err := actions.Parse(data)
	if err == nil {
		err = a.Validate()
	}
	if err != nil {
		return f.call.protocolError("sent an invalid copilot_action: " + err.Error()).Wrap(f.call.cleanCause(err))
	}
	f.actions++
	return f.pass(f.sink.Action(a))
}

// pass maps a sink error.
func (f *forward) pass(err error) *apierr.Error {
	if err != nil {
		return f.sinkFailed(err)
	}
	return nil
}

// sinkFailed abandons the call to the remote at once: the client went
// away.
func (f *forward) sinkFailed(err error) *apierr.Error {
	f.cancel(errSinkFailed)
	return canceled(f.call.cleanCause(err))
}

// finishKey is the key of a chunk's finish reason.
var finishKey = []byte(`"finish_reason"`)

// hasFinishReason reports whether a chunk carries a finish_reason other
// than null or "" (the seed-003 sample writes "" in every chunk). The key
// cannot occur inside a string of valid JSON (its quotes would be escaped).
func hasFinishReason(data []byte) bool {
	for {
		i := bytes.Index(data, finishKey)
		if i < 0 {
			return false
		}
		data = bytes.TrimLeft(data[i+len(finishKey):], " \t\r\n")
		data = bytes.TrimLeft(bytes.TrimPrefix(data, []byte(":")), " \t\r\n")
		if len(data) > 1 && data[0] == '"' && data[1] != '"' {
			return true
		}
	}
}

// endChunk is what isEndChunk decodes of a chunk.
type endChunk struct {
	Choices []struct {
		Delta        map[string]json.RawMessage `json:"delta"`
		FinishReason *string                    `json:"finish_reason"`
	} `json:"choices"`
	Usage json.RawMessage `json:"usage"`
}

// isEndChunk reports whether a chunk is a stream's end chunk, as an agentgw
// writes it: at least one choice, each with the finish_reason "stop" or
// "error" and a delta with nothing but a role and empty values, and no
// usage. A chunk that says more (another finish_reason such as "length",
// some text, the usage) is relayed like a model's.
func isEndChunk(data []byte) bool {
	var c endChunk
	if json.Unmarshal(data, &c) != nil || len(c.Choices) == 0 || !isNull(c.Usage) {
		return false
	}
	for _, ch := range c.Choices {
		if ch.FinishReason == nil || (*ch.FinishReason != "stop" && *ch.FinishReason != "error") {
			return false
		}
		for k, v := range ch.Delta {
			if k != "role" && !isEmptyValue(v) {
				return false
			}
		}
	}
	return true
}

func isNull(v json.RawMessage) bool { return len(v) == 0 || string(v) == "null" }

// isEmptyValue reports whether a JSON value is null, "", [] or {}.
func isEmptyValue(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	switch {
	case len(v) == 0, string(v) == "null", string(v) == `""`:
		return true
	case len(v) >= 2 && (v[0] == '[' || v[0] == '{'):
		return len(bytes.TrimSpace(v[1:len(v)-1])) == 0
	}
	return false
}
