package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/agentgw/agentgw/agent/emit"
	"github.com/agentgw/agentgw/agent/runstate"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/llm"
	"github.com/google/uuid"
)

// DefaultMaxToolRounds bounds the model's tool-calling rounds per answer.
const DefaultMaxToolRounds = 8

// errPaused ends a stream that waits for the user (consent) or the IDE (a
// frontend tool's result): not an error the user sees.
var errPaused = errors.New("the run waits for the user or the IDE")

// toolLoop is one model conversation that may call tools: it streams each
// round's text to the user, runs the tools the model asks for and gives the
// results back, until the model answers without tool calls.
type toolLoop struct {
	run    *Run
	tools  map[string]stepkind.Tool
	model  string
	params map[string]any
	msgs   []llm.Message
	round  int
	stream bool
	// fallbacks are the models tried when model fails before answering
	// (nil: the gateway's).
	fallbacks []string
	// start is, for the command's own model, the index in msgs of the
	// answer's first message (after the prompt); 0 for a plan's llm step.
	start int
}

// keepTurn gives the run's conversation the command's own tool rounds and
// final answer, as the model saw them.
func (l *toolLoop) keepTurn(final string) {
	if l.run.conv != nil && l.start > 0 && !l.run.called {
		l.run.conv.Loop(keptMessages(l.msgs[l.start:]), final)
	}
}

// converse runs rounds until the model stops calling tools; it returns the
// final answer's text, or errPaused after emitting what the user or the IDE
// must answer.
func (l *toolLoop) converse(ctx context.Context, em emit.Emitter) (string, error) {
	max := l.run.cfg.MaxToolRounds
	if max <= 0 {
		max = DefaultMaxToolRounds
	}
	for ; l.round < max; l.round++ {
		text, calls, err := l.ask(ctx, em)
		if err != nil {
			return "", err
		}
		if len(calls) == 0 {
			return text, nil
		}
		l.msgs = append(l.msgs, llm.AssistantMessage(text, calls))
		if err := l.handle(ctx, em, calls); err != nil {
			return "", err
		}
	}
	return "", apierr.New(apierr.CodeToolRoundsExceeded, fmt.Sprintf("the model kept calling tools for %d rounds without answering", max))
}

// ask sends one round to the model.
func (l *toolLoop) ask(ctx context.Context, em emit.Emitter) (string, []llm.ToolCall, error) {
	run := l.run
	if run.cfg.LLM == nil {
		return "", nil, notConfigured(run.cmd.Def.Name)
	}
	req := l.request()
	if !l.stream {
		text, calls, err := run.cfg.LLM.CompleteTools(ctx, req)
		if err != nil {
			return "", nil, upstreamError(err)
		}
		return text, calls, nil
	}
	sink := &llm.ToolCallSink{Next: em}
	if _, err := run.cfg.LLM.Stream(ctx, req, sink); err != nil {
		return "", nil, upstreamError(err)
	}
	return sink.Text(), sink.Calls(), nil
}

// request is the round's request to the model.
func (l *toolLoop) request() *llm.ChatRequest {
	run := l.run
	req := &llm.ChatRequest{Model: l.model, Messages: l.msgs, Extra: withDefaults(run.extra, l.params), Header: run.req.Header,
		FallbackModels: l.fallbacks}
	for _, name := range sortedKeys(l.tools) {
		req.Tools = append(req.Tools, l.tools[name].FunctionDef())
	}
	return req
}

// handle runs the calls the gateway may run now, in parallel, and pauses
// for the ones that need the user's consent or run in the IDE.
func (l *toolLoop) handle(ctx context.Context, em emit.Emitter, calls []llm.ToolCall) error {
	results := make([]string, len(calls))
	var waiting []runstate.PendingCall
	var wg sync.WaitGroup
	for i, c := range calls {
		t := l.tools[c.Name]
		switch {
		case t == nil:
			results[i] = toolResultText(toolspec.Result{CallID: c.ID, Status: toolspec.StatusError,
				Error: &toolspec.ResultError{Code: toolspec.CodeUnknownTool, Message: fmt.Sprintf("there is no tool named %q", c.Name)}})
		case t.ToolSpec().Runtime == "frontend":
			waiting = append(waiting, runstate.PendingCall{Index: i, Call: c, Frontend: true})
		case t.NeedsConsent():
			waiting = append(waiting, runstate.PendingCall{Index: i, Call: c})
		default:
			if err := em.Text(progressLine(c)); err != nil {
				return apierr.Canceled(err)
			}
			wg.Go(func() { results[i] = toolResultText(l.call(ctx, t, c)) })
		}
	}
	wg.Wait()
	if len(waiting) > 0 {
		return l.pause(ctx, em, calls, results, waiting)
	}
	for i, c := range calls {
		l.msgs = append(l.msgs, llm.ToolMessage(c.ID, results[i]))
	}
	return nil
}

// call runs one backend tool with the model's arguments.
func (l *toolLoop) call(ctx context.Context, t stepkind.Tool, c llm.ToolCall) toolspec.Result {
	params := map[string]any{}
	if strings.TrimSpace(c.Arguments) != "" {
		if err := json.Unmarshal([]byte(c.Arguments), &params); err != nil {
			return toolspec.Result{CallID: c.ID, Status: toolspec.StatusError,
				Error: &toolspec.ResultError{Code: toolspec.CodeInvalidParameters, Message: "the arguments are not a JSON object: " + err.Error()}}
		}
	}
	r := t.Call(toolspec.WithCaller(ctx, l.run.caller()), toolspec.Call{ID: c.ID, Parameters: params})
	l.run.logger().Info("tool called", "tool", t.ToolSpec().Name, "status", r.Status, "ms", r.ExecutionTime)
	return r
}

// toolResultText is what the model reads of a result: its JSON.
func toolResultText(r toolspec.Result) string {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Sprintf(`{"status":"ERROR","error":{"message":%q}}`, err.Error())
	}
	return string(data)
}

// progressLine is what the user sees of a tool call.
func progressLine(c llm.ToolCall) string {
	return fmt.Sprintf("\n> running %s %s\n", c.Name, compactArgs(c.Arguments, 80))
}

// compactArgs is a tool call's arguments on one line, spaces squeezed, in at
// most n characters.
func compactArgs(args string, n int) string {
	return tmpl.Truncate(n-1, strings.Join(strings.Fields(args), " "))
}

// newCallID returns a fresh call id in the upstream's style, as
// tools.NewCallID does: "call_" and 32 hex digits.
func newCallID() string { return "call_" + strings.ReplaceAll(uuid.NewString(), "-", "") }

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
