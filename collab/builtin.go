package collab

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentgw/agentgw/agent/toolspec"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/tools"
)

// BuiltinAskAgent is the builtin tool entry of ask_agent.
const BuiltinAskAgent = "ask_agent"

// Builtins are the builtin tools of collaboration, by entry name:
// ask_agent, with parameters agent (required), question (required) and
// command, asks agent the question on behalf of the agent whose run calls
// it (tools.CallerOf, whose request header it passes on) and returns the
// answer's text. Its progress is not
// shown: the tool loop's "> running ask_agent …" line stands for it. A
// timeout is a TIMEOUT result, an error response a TOOL_FAILED one naming
// the asked agent's error, an ask the run's key may not make (Ask's
// checkScope) a FORBIDDEN one.
func Builtins(a *Asker) map[string]tools.BuiltinFunc {
	return map[string]tools.BuiltinFunc{BuiltinAskAgent: a.askAgent}
}

func (a *Asker) askAgent(ctx context.Context, p map[string]any) (any, error) {
	to, _ := p["agent"].(string)
	question, _ := p["question"].(string)
	command, _ := p["command"].(string)
	if to == "" || question == "" {
		return nil, &toolspec.ResultError{Code: toolspec.CodeInvalidParameters, Message: "ask_agent needs agent and question, both strings"}
	}
	caller, _ := tools.CallerOf(ctx)
	var refused *apierr.Error
	resp, _, err := a.Ask(ctx, caller.Agent, to, question, Options{Command: command, Header: caller.Header})
	switch {
	case errors.Is(err, ErrTimeout):
		return nil, &toolspec.ResultError{Code: toolspec.CodeTimeout, Message: err.Error()}
	case errors.Is(err, ErrCanceled):
		return nil, &toolspec.ResultError{Code: toolspec.CodeCanceled, Message: err.Error()}
	case errors.As(err, &refused) && refused.Code == apierr.CodeForbidden:
		// The key's scope: the model reads why, and nothing was asked.
		return nil, &toolspec.ResultError{Code: apierr.CodeForbidden, Message: refused.Message}
	case err != nil:
		return nil, err
	}
	c, _ := resp.Response()
	if c.Status != StatusSuccess {
		return nil, fmt.Errorf("agent %q answered with an error: %s", to, c.errorText())
	}
	return c.Result, nil
}

// errorText is a failed response's error as one line: code and message.
func (c ResponseContent) errorText() string {
	if c.Error == nil {
		return "no error given"
	}
	return c.Error.Code + ": " + c.Error.Message
}
