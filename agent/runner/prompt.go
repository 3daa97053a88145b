package runner

import (
	"context"

	"github.com/agentgw/agentgw/agent/prompt"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/observe"
)

// renderPrompt assembles the command's prompt (prompt.Render) with data.
func (run *Run) renderPrompt(ctx context.Context, data any) ([]llm.Message, error) {
	cmd := run.cmd
	spec := &prompt.Spec{System: cmd.System, Others: cmd.Others, MentionsInput: cmd.MentionsInput, References: cmd.DefaultReferences}
	return prompt.Render(ctx, spec, prompt.Inputs{Turns: run.turns, Context: run.req.Context, References: run.cfg.ReferencesPrompt}, data)
}

// buildPrompt renders the prompt from the prepared template data and, while
// it is over the model's budget, cuts the least valuable context, rebuilds
// the data and renders again. It logs what it cut.
func (run *Run) buildPrompt(ctx context.Context) (msgs []llm.Message, err error) {
	ctx, observed := observe.From(ctx).Phase(ctx, observe.PhasePrompt)
	defer func() { observed(err) }()
	var data any = promptData{run}
	if run.parent != nil {
		// A sub-run renders with the data it was given.
		data = run.templateMap()
	}
	msgs, err = run.renderPrompt(ctx, data)
	if err != nil {
		return nil, err
	}
	budget := run.cfg.Budget.Limit(run.model, run.cmd.Model.ContextLength, run.extra)
	var cut []string
	for range 64 {
		total := prompt.Tokens(msgs)
		if total <= budget {
			break
		}
		need := total - budget
		if len(cut) == 0 {
			// Before the first cut: what plans and later templates see
			// stays the uncut data.
			run.templateMap()
		}
		step := run.req.Context.Cut(need, llm.EstimateTokens)
		if len(step) == 0 {
			run.turns, step = prompt.CutTurns(run.turns, need)
		}
		if len(step) == 0 {
			run.logger().Warn("prompt is over the model's budget and nothing is left to cut",
				"model", run.model, "budget", budget, "tokens", total)
			break
		}
		cut = append(cut, step...)
		if msgs, err = run.renderPrompt(ctx, run.templateData(run.req.Context.TemplateData())); err != nil {
			return nil, err
		}
	}
	if len(cut) > 0 {
		run.logger().Info("prompt over budget: cut context", "model", run.model, "budget", budget,
			"tokens", prompt.Tokens(msgs), "cut", cut)
	}
	return msgs, nil
}
