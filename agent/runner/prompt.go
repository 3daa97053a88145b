package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/agent/tmpl"
	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/observe"
)

// BudgetConfig sets the context budget of prompts.
type BudgetConfig struct {
	// DefaultContextLength is a model's context length in tokens when no
	// entry of Models matches; 0 means 32768.
	DefaultContextLength int
	// ReplyReserve is kept free for the answer when neither the request nor
	// the command sets max_tokens; 0 means 1024.
	ReplyReserve int
	// Models maps model names, or path.Match patterns such as "gpt-4o*",
	// to their context length in tokens. A name listed as such wins; else
	// the longest matching pattern, ties going to the first in
	// alphabetical order.
	Models map[string]int
	// patterns are the entries of Models in the order they are tried,
	// set by NewRunner (nil: contextLength orders them on each call).
	patterns []modelPattern
}

// modelPattern is an entry of BudgetConfig.Models.
type modelPattern struct {
	pattern string
	length  int
}

// orderPatterns returns the entries of models longest first, ties in
// alphabetical order: the order in which the first match is the best.
func orderPatterns(models map[string]int) []modelPattern {
	out := make([]modelPattern, 0, len(models))
	for p, n := range models {
		out = append(out, modelPattern{p, n})
	}
	slices.SortFunc(out, func(a, b modelPattern) int {
		if c := cmp.Compare(len(b.pattern), len(a.pattern)); c != 0 {
			return c
		}
		return strings.Compare(a.pattern, b.pattern)
	})
	return out
}

// contextLength returns the context length for model.
func (b BudgetConfig) contextLength(model string) int {
	if n, ok := b.Models[model]; ok {
		return n
	}
	patterns := b.patterns
	if patterns == nil {
		patterns = orderPatterns(b.Models)
	}
	for _, p := range patterns {
		if ok, _ := path.Match(p.pattern, model); ok {
			return p.length
		}
	}
	if b.DefaultContextLength > 0 {
		return b.DefaultContextLength
	}
	return 32768
}

// promptTokens estimates the tokens of a prompt, with a small overhead per
// message for the role and separators.
func promptTokens(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		if m.Raw != nil && m.Content == "" {
			n += llm.EstimateTokens(string(m.Raw))
		} else {
			n += llm.EstimateTokens(m.Content)
		}
		n += 4
	}
	return n
}

// renderPrompt assembles the prompt in the order of docs/protocol.md §9:
// system templates (then the knowledge references, when no template places
// them), conversation turns, global prompts as rules, the user
// templates or else the user's input as the last user message.
func (run *Run) renderPrompt(ctx context.Context, data any) ([]llm.Message, error) {
	cmd := run.cmd
	var msgs []llm.Message
	for _, t := range cmd.system {
		s, err := tmpl.Execute(ctx, t, data)
		if err != nil {
			return nil, tmpl.RenderError(err)
		}
		if s != "" {
			msgs = append(msgs, llm.Message{Role: "system", Content: s})
		}
	}
	if cmd.defaultReferences {
		msgs = run.appendReferences(msgs)
	}
	msgs = append(msgs, run.turns...)
	for _, gp := range run.req.Context.GlobalPrompts {
		role := gp.Role
		if role == "" {
			role = "system"
		}
		if gp.Content != "" {
			msgs = append(msgs, llm.Message{Role: role, Content: gp.Content})
		}
	}
	for _, rt := range cmd.others {
		s, err := tmpl.Execute(ctx, rt.t, data)
		if err != nil {
			return nil, tmpl.RenderError(err)
		}
		if s != "" {
			msgs = append(msgs, llm.Message{Role: rt.role, Content: s})
		}
	}
	if !cmd.mentionsInput && run.req.Context.UserInputPrompt != "" {
		msgs = append(msgs, llm.Message{Role: "user", Content: run.req.Context.UserInputPrompt})
	}
	return msgs, nil
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
	budget := run.budget()
	var cut []string
	for range 64 {
		total := promptTokens(msgs)
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
			step = run.cutTurns(need)
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
			"tokens", promptTokens(msgs), "cut", cut)
	}
	return msgs, nil
}

// cutTurns drops the oldest conversation turns worth about need tokens.
func (run *Run) cutTurns(need int) []string {
	dropped, tokens := 0, 0
	for len(run.turns) > 0 && (tokens < need || run.turns[0].Role == "tool") {
		// A tool result goes with the call before it: none is left first.
		tokens += promptTokens(run.turns[:1])
		run.turns = run.turns[1:]
		dropped++
	}
	if dropped == 0 {
		return nil
	}
	return []string{fmt.Sprintf("messages: dropped the %d oldest turns (~%d tokens)", dropped, tokens)}
}

// budget is the model's context length less what the answer needs.
func (run *Run) budget() int {
	total := run.cmd.model.ContextLength
	if total <= 0 {
		total = run.cfg.Budget.contextLength(run.model)
	}
	reserve := run.cfg.Budget.ReplyReserve
	if reserve <= 0 {
		reserve = 1024
	}
	if n := run.maxTokens(); n > 0 {
		reserve = n
	}
	return max(total-reserve, 256)
}

// maxTokens is the answer's max_tokens from the request or the command.
func (run *Run) maxTokens() int {
	for _, f := range run.extra {
		if f.Key == "max_tokens" || f.Key == "max_completion_tokens" {
			var n int
			if json.Unmarshal(f.Value, &n) == nil {
				return n
			}
		}
	}
	return 0
}

// appendReferences places the context's knowledge references as the
// system message cfg.ReferencesPrompt renders, for a command whose
// templates do not place them. Each render after a budget cut renders the
// references left.
func (run *Run) appendReferences(msgs []llm.Message) []llm.Message {
	if run.cfg.ReferencesPrompt == nil || len(run.req.Context.KnowledgeBase) == 0 {
		return msgs
	}
	if s := run.cfg.ReferencesPrompt(run.req.Context.KnowledgeBase); s != "" {
		msgs = append(msgs, llm.Message{Role: "system", Content: s})
	}
	return msgs
}
