package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/agentgw/agentgw/agent/toolspec"
)

// maxToolRounds bounds the answers with tool calls in one chat session, so
// that an agent that keeps asking cannot loop forever.
const maxToolRounds = 16

// exchange sends body and renders the answer. While an answer carries
// copilot_tool_call frames, it runs (or declines) each call and sends their
// results together in one feedback request: the body of the request whose
// answer carried the calls, without any "action" or earlier "toolResults",
// plus "toolResults"; then it renders that answer. It returns the last
// answer's actions and the request that brought it. An answer with tool
// calls offers no actions: what the run still waits for comes again after
// the results. Both are nil when ctx ended.
func (c *chatClient) exchange(ctx context.Context, body map[string]any) ([]wireAction, map[string]any, error) {
	for {
		reply, err := c.send(ctx, body)
		if err != nil || reply == nil {
			return nil, nil, err
		}
		if len(reply.calls) == 0 {
			return reply.actions, body, nil
		}
		if c.toolRounds == maxToolRounds {
			return nil, nil, fmt.Errorf("the agent asked for tools %d times in this session; chat stops here", maxToolRounds)
		}
		c.toolRounds++
		results, err := c.answerTools(ctx, reply.calls)
		if err != nil || results == nil {
			return nil, nil, err
		}
		body = baseBody(body)
		body["toolResults"] = results
	}
}

// answerTools answers the calls in order; nil when ctx ended.
func (c *chatClient) answerTools(ctx context.Context, calls []wireToolCall) ([]toolspec.Result, error) {
	results := make([]toolspec.Result, 0, len(calls))
	for _, call := range calls {
		res, err := c.answerTool(ctx, call)
		if err != nil || ctx.Err() != nil {
			return nil, err
		}
		results = append(results, res)
	}
	return results, nil
}

// answerTool asks for consent when needed, runs the call and prints a line
// saying what became of it.
func (c *chatClient) answerTool(ctx context.Context, call wireToolCall) (toolspec.Result, error) {
	if c.tools == nil {
		c.tools = newToolbox(c.opts.dir)
	}
	label := callLabel(call)
	if _, ok := findTool(call.Name); ok {
		declined, err := c.consent(ctx, call, label)
		if err != nil || ctx.Err() != nil {
			return toolspec.Result{}, err
		}
		if declined != nil {
			res := failedResult(call, declined)
			fmt.Fprintf(c.out, "↳ %s … %s%s\n", label, outcome(res, c.in == nil), fallbackNote(call.FallbackBehavior))
			return res, nil
		}
	}
	fmt.Fprintf(c.out, "↳ %s … ", label)
	res := c.tools.run(ctx, call)
	note := ""
	if toolspec.CouldNotRun(res) {
		// Only a tool that could not run follows its fallbackBehavior;
		// a tool that ran and failed gives the model its error.
		note = fallbackNote(call.FallbackBehavior)
	}
	fmt.Fprintf(c.out, "%s%s\n", outcome(res, false), note)
	return res, nil
}

// consent decides whether a call may run: with --allow-tools it may; when
// chat can ask (a terminal, or --interactive), a call with a userPrompt
// runs if the user says yes and one without runs; otherwise it is
// declined. It returns why the call was declined, nil when it may run.
func (c *chatClient) consent(ctx context.Context, call wireToolCall, label string) (*toolspec.ResultError, error) {
	switch {
	case c.opts.allowTools:
		return nil, nil
	case c.in == nil:
		return &toolspec.ResultError{Code: codeDeclined, Message: "the user did not allow it: agentgw chat runs tools only with --allow-tools"}, nil
	case call.UserPrompt == "":
		return nil, nil
	}
	fmt.Fprintf(c.out, "%s (%s) [y/N] ", call.UserPrompt, label)
	line, err := c.in.next(ctx)
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(c.out)
		return nil, nil // the caller sees ctx end
	case errors.Is(err, io.EOF):
		fmt.Fprintln(c.out)
		line = ""
	case err != nil:
		return nil, fmt.Errorf("reading your answer: %w", err)
	case c.in.echo:
		fmt.Fprintln(c.out, line)
	}
	if yes := strings.ToLower(strings.TrimSpace(line)); yes == "y" || yes == "yes" {
		return nil, nil
	}
	return &toolspec.ResultError{Code: codeDeclined, Message: "the user declined"}, nil
}

// outcome says what became of a call; hint adds how to allow tools to a
// declined one.
func outcome(res toolspec.Result, hint bool) string {
	switch {
	case res.Status == toolspec.StatusSuccess:
		return "done"
	case res.Status == toolspec.StatusTimeout:
		return "timed out"
	case res.Error != nil && res.Error.Code == codeDeclined:
		if hint {
			return "declined (run chat with --allow-tools to let the agent use tools)"
		}
		return "declined"
	case res.Error != nil:
		return fmt.Sprintf("error %s: %s", res.Error.Code, res.Error.Message)
	}
	return "error"
}

// fallbackNote tells what the agent does without the result of a tool
// that could not run (the gateway acts on the tool's fallbackBehavior).
func fallbackNote(behavior string) string {
	switch behavior {
	case "":
		return ""
	case toolspec.FallbackAbort:
		return " — fallback ABORT: the agent should stop here"
	case toolspec.FallbackSkip:
		return " — fallback SKIP: the agent may go on without it"
	case toolspec.FallbackUseAlternative:
		return " — fallback USE_ALTERNATIVE: the agent may try another way"
	}
	return " — fallback " + behavior
}

// callLabelMax bounds how many characters of a call's parameters are shown.
const callLabelMax = 120

// callLabel is a call as printed: its name and compact parameters.
func callLabel(call wireToolCall) string {
	params := "{}"
	if len(call.Parameters) > 0 && string(call.Parameters) != "null" {
		var b bytes.Buffer
		if json.Compact(&b, call.Parameters) == nil {
			params = b.String()
		} else {
			params = strings.Join(strings.Fields(string(call.Parameters)), " ")
		}
	}
	if utf8.RuneCountInString(params) > callLabelMax {
		params = string([]rune(params)[:callLabelMax-1]) + "…"
	}
	return call.Name + " " + params
}
