package runner

import (
	"sync"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/apierr"
)

// sequencer puts what the steps of a plan show the user into step order
// while the steps run in parallel: the earliest unfinished step writes
// through to the real emitter, later ones are held until every step before
// them has finished.
type sequencer struct {
	mu    sync.Mutex
	out   emit.Emitter
	next  int // the step whose output goes out live
	steps []seqStep
}

type seqStep struct {
	frames []emit.Frame
	done   bool
}

func newSequencer(out emit.Emitter, n int) *sequencer {
	return &sequencer{out: out, steps: make([]seqStep, n)}
}

// emitter returns the emitter of step i.
func (s *sequencer) emitter(i int) *stepEmitter { return &stepEmitter{s: s, i: i} }

// finish marks step i done and lets the following steps' output through.
func (s *sequencer) finish(i int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps[i].done = true
	for s.next < len(s.steps) {
		st := &s.steps[s.next]
		for _, f := range st.frames {
			s.write(f)
		}
		st.frames = nil
		if !st.done {
			return
		}
		s.next++
	}
}

// write sends one frame to the real emitter; the caller holds mu.
func (s *sequencer) write(f emit.Frame) error {
	switch f.Kind {
	case "text":
		return s.out.Text(f.Text)
	case "chunk":
		return s.out.Chunk(f.Raw)
	case "action":
		return s.out.Action(f.Action)
	case "error":
		return s.out.Error(f.Error)
	case "toolcall":
		return s.out.ToolCall(f.ToolCall)
	}
	return nil
}

func (s *sequencer) emit(i int, f emit.Frame) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i == s.next {
		return s.write(f)
	}
	if f.Kind == "chunk" {
		f.Raw = append([]byte(nil), f.Raw...) // the relay reuses its buffer
	}
	s.steps[i].frames = append(s.steps[i].frames, f)
	return nil
}

// stepEmitter is the emit.Emitter of one step. End does nothing: the run ends
// the stream once, after the plan.
type stepEmitter struct {
	s *sequencer
	i int
}

var _ emit.Emitter = (*stepEmitter)(nil)

func (e *stepEmitter) Text(content string) error {
	return e.s.emit(e.i, emit.Frame{Kind: "text", Text: content})
}
func (e *stepEmitter) Chunk(raw []byte) error {
	return e.s.emit(e.i, emit.Frame{Kind: "chunk", Raw: raw})
}
func (e *stepEmitter) Action(a *actions.Action) error {
	return e.s.emit(e.i, emit.Frame{Kind: "action", Action: a})
}
func (e *stepEmitter) Error(er *apierr.Error) error {
	return e.s.emit(e.i, emit.Frame{Kind: "error", Error: er})
}
func (e *stepEmitter) ToolCall(f *emit.ToolCallFrame) error {
	return e.s.emit(e.i, emit.Frame{Kind: "toolcall", ToolCall: f})
}
func (e *stepEmitter) End() error { return nil }
