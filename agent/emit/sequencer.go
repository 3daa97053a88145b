package emit

import (
	"sync"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/apierr"
)

// Sequencer puts what the steps of a plan show the user into step order
// while the steps run in parallel: the earliest unfinished step writes
// through to the real emitter, later ones are held until every step before
// them has finished.
type Sequencer struct {
	mu    sync.Mutex
	out   Emitter
	next  int // the step whose output goes out live
	steps []seqStep
}

type seqStep struct {
	frames []Frame
	done   bool
}

// NewSequencer returns a sequencer of n steps writing to out.
func NewSequencer(out Emitter, n int) *Sequencer {
	return &Sequencer{out: out, steps: make([]seqStep, n)}
}

// Emitter returns the emitter of step i.
func (s *Sequencer) Emitter(i int) *StepEmitter { return &StepEmitter{s: s, i: i} }

// Finish marks step i done and lets the following steps' output through.
func (s *Sequencer) Finish(i int) {
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
func (s *Sequencer) write(f Frame) error {
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

func (s *Sequencer) emit(i int, f Frame) error {
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

// StepEmitter is the Emitter of one step. End does nothing: the run ends
// the stream once, after the plan.
type StepEmitter struct {
	s *Sequencer
	i int
}

var _ Emitter = (*StepEmitter)(nil)

// Text implements Emitter.
func (e *StepEmitter) Text(content string) error {
	return e.s.emit(e.i, Frame{Kind: "text", Text: content})
}

// Chunk implements Emitter.
func (e *StepEmitter) Chunk(raw []byte) error {
	return e.s.emit(e.i, Frame{Kind: "chunk", Raw: raw})
}

// Action implements Emitter.
func (e *StepEmitter) Action(a *actions.Action) error {
	return e.s.emit(e.i, Frame{Kind: "action", Action: a})
}

// Error implements Emitter.
func (e *StepEmitter) Error(er *apierr.Error) error {
	return e.s.emit(e.i, Frame{Kind: "error", Error: er})
}

// ToolCall implements Emitter.
func (e *StepEmitter) ToolCall(f *ToolCallFrame) error {
	return e.s.emit(e.i, Frame{Kind: "toolcall", ToolCall: f})
}

// End implements Emitter.
func (e *StepEmitter) End() error { return nil }
