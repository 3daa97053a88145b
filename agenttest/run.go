package agenttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/request"
	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/apierr"
)

// maxToolRounds bounds the frontend tool results a test sends for one
// request, as an IDE answering the gateway's calls would.
const maxToolRounds = 16

// answer is what one request of a test got back, frontend tool rounds
// included.
type answer struct {
	text    strings.Builder
	actions []*actions.Action
	err     *apierr.Error
	calls   []madeCall
	steps   []madeCall
	prompts []upstreamCall
}

// session is a test's conversation: the request the plugin would send
// next and what the last answer showed.
type session struct {
	e     *env
	agent string
	base  Request
	last  *answer
	// nodes are the tree nodes shown so far by tree id, with the action
	// that showed each (its state and node actions).
	nodes map[string]map[string]shownNode
	// lastTree is the id of the last tree shown.
	lastTree string
}

// shownNode is a tree node and the action frame that showed it.
type shownNode struct {
	node  actions.Node
	frame *actions.Action
}

// runTest runs one test: its request (after the request without its
// action when it clicks one), then its further steps.
func (e *env) runTest(ctx context.Context, f *File, agentName string, t *Test) ([]failure, int) {
	e.replay.reset(t.Model)
	e.stubs.begin(t, e.replay.order)
	s := &session{e: e, agent: agentName, base: t.Request, nodes: map[string]map[string]shownNode{}}
	s.base.Action = nil
	var fails []failure
	updated := 0
	step := func(req Request, exp *Expect, at agent.Position) bool {
		ans, err := s.send(ctx, req)
		if err != nil {
			fails = append(fails, failure{pos: at, what: err.Error()})
			return false
		}
		c := checker{file: f, update: e.cfg.Update, read: e.cfg.ReadFile, write: e.cfg.WriteFile}
		c.answer(exp, ans, at)
		fails = append(fails, c.fails...)
		updated += c.updated
		return true
	}
	first := t.Request
	if first.Action != nil {
		// The click's action comes from the answer to the request itself.
		setup := first
		setup.Action = nil
		if !step(setup, nil, t.Request.Pos) {
			return fails, updated
		}
	}
	if !step(first, t.Expect, t.Request.Pos) {
		return fails, updated
	}
	for _, st := range t.Then {
		if st == nil {
			continue
		}
		if !step(st.Request, st.Expect, st.Pos) {
			break
		}
	}
	calls, used := e.replay.taken()
	if used < len(t.Model) {
		fails = append(fails, failure{pos: t.modelPos, what: fmt.Sprintf("model: %d of the %d recorded answers were not used (the gateway called the model %d times)", len(t.Model)-used, len(t.Model), len(calls))})
	}
	if missing := e.stubs.missingStubs(); len(missing) > 0 {
		fails = append(fails, failure{pos: t.Pos, what: fmt.Sprintf("tools: no stub for %s (add it under tools:)", strings.Join(missing, ", "))})
	}
	return fails, updated
}

// send sends one request of the conversation: a click on an action of the
// last answer when req has one, else a request with req's command,
// variables and messages (each, when set, replacing the conversation's).
func (s *session) send(ctx context.Context, req Request) (*answer, error) {
	if req.Command != nil {
		s.base.Command = req.Command
	}
	if req.ContextVariables != nil {
		s.base.ContextVariables = req.ContextVariables
	}
	if req.Messages != nil {
		s.base.Messages = req.Messages
	}
	if req.Model != "" {
		s.base.Model = req.Model
	}
	if req.ContextID != "" {
		s.base.ContextID = req.ContextID
	}
	if req.Handoff != nil {
		s.base.Handoff = req.Handoff
	}
	body := s.body()
	if req.Action != nil {
		if err := s.click(req.Action, body); err != nil {
			return nil, err
		}
	}
	callsBefore, _ := s.e.replay.taken()
	ans := &answer{}
	if err := s.exchange(ctx, body, ans); err != nil {
		return nil, err
	}
	all, _ := s.e.replay.taken()
	ans.prompts = all[len(callsBefore):]
	ans.calls = s.e.stubs.takeCalls()
	ans.steps = s.e.stubs.takeSteps()
	s.last = ans
	s.remember(ans)
	return ans, nil
}

// body is the plugin's request without an action.
func (s *session) body() map[string]any {
	b := map[string]any{"agent": s.agent}
	if s.base.Command != nil && s.base.Command.Src != "" {
		b["command"] = s.base.Command.Src
	}
	vars := make([]any, 0, len(s.base.ContextVariables))
	for _, v := range s.base.ContextVariables {
		if v != nil {
			vars = append(vars, map[string]any{"name": v.Name, "value": v.Value.Interface()})
		}
	}
	b["contextVariables"] = vars
	if len(s.base.Messages) > 0 {
		msgs := make([]any, 0, len(s.base.Messages))
		for _, m := range s.base.Messages {
			if m != nil {
				msgs = append(msgs, map[string]any{"role": m.Role, "content": m.Content})
			}
		}
		b["messages"] = msgs
	}
	if s.base.Model != "" {
		b["model"] = s.base.Model
	}
	if s.base.ContextID != "" {
		b["contextId"] = s.base.ContextID
	}
	return b
}

// exchange sends body and, while the answer asks the IDE to run frontend
// tools the test stubs, sends their results as the IDE would.
func (s *session) exchange(ctx context.Context, body map[string]any, ans *answer) error {
	for range maxToolRounds {
		frames, err := s.request(ctx, body, ans)
		if err != nil || len(frames) == 0 || ans.err != nil {
			return err
		}
		var results []toolspec.Result
		for _, f := range frames {
			s.e.stubs.record(f.Name, "", f.Parameters)
			st, ok := s.e.stubs.tool(f.Name)
			if !ok {
				return nil // reported as a missing stub
			}
			r := toolspec.Result{CallID: f.CallID, Status: toolspec.StatusSuccess, Result: st.Result.Interface()}
			if st.Error != nil {
				r = toolspec.Result{CallID: f.CallID, Status: toolspec.StatusError, Error: &toolspec.ResultError{Code: firstNonEmpty(st.Error.Code, st.Error.ErrorCode, toolspec.CodeToolFailed), Message: st.Error.Message}}
			}
			results = append(results, r)
		}
		next := map[string]any{"agent": s.agent, "contextVariables": body["contextVariables"], "toolResults": results}
		body = next
	}
	return fmt.Errorf("the IDE answered %d rounds of frontend tool calls and the gateway still asks for more", maxToolRounds)
}

// request sends one request through the runner as the server would:
// decoded from JSON, prepared, executed into a recorder. It returns the
// frontend tool calls the answer asks for.
func (s *session) request(ctx context.Context, body map[string]any, ans *answer) ([]*emit.ToolCallFrame, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	req, err := request.Decode(raw)
	if err != nil {
		ans.err = asError(err)
		return nil, nil
	}
	req.ID = "agenttest"
	if h := s.base.Handoff; h != nil {
		// As the hub delivers it: JSON-shaped data.
		var data map[string]any
		raw, _ := json.Marshal(h.Interface())
		if err := json.Unmarshal(raw, &data); err != nil {
			return nil, fmt.Errorf("request.handoff: expected a mapping (a hand-off message)")
		}
		req.Handoff = data
	}
	run, err := s.e.runner.Prepare(req)
	if err != nil {
		ans.err = asError(err)
		return nil, nil
	}
	rec := &emit.Recorder{}
	run.Execute(ctx, rec)
	var frames []*emit.ToolCallFrame
	for _, f := range rec.Frames() {
		switch f.Kind {
		case "text", "chunk":
			ans.text.WriteString(f.Text)
		case "action":
			ans.actions = append(ans.actions, f.Action)
		case "error":
			if ans.err == nil {
				ans.err = f.Error
			}
		case "toolcall":
			frames = append(frames, f.ToolCall)
		}
	}
	return frames, nil
}

func asError(err error) *apierr.Error {
	var e *apierr.Error
	if errors.As(err, &e) {
		return e
	}
	return apierr.Internal(err)
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// remember keeps the tree nodes an answer showed, merged as the plugin
// merges lazily loaded children.
func (s *session) remember(ans *answer) {
	for _, a := range ans.actions {
		if a.Kind != actions.KindTree || a.Tree == nil {
			continue
		}
		m := s.nodes[a.Tree.TreeID]
		if m == nil {
			m = map[string]shownNode{}
			s.nodes[a.Tree.TreeID] = m
		}
		for _, n := range a.Tree.Nodes {
			m[n.ID] = shownNode{node: n, frame: a}
		}
		s.lastTree = a.Tree.TreeID
	}
}
