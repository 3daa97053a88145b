package prompt

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/llm"
)

// Budget sets the context budget of prompts.
type Budget struct {
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
	// set by Compiled (nil: ContextLength orders them on each call).
	patterns []modelPattern
}

// modelPattern is an entry of Budget.Models.
type modelPattern struct {
	pattern string
	length  int
}

// Compiled returns b with its model patterns ordered once, for a budget
// that serves many requests.
func (b Budget) Compiled() Budget {
	b.patterns = orderPatterns(b.Models)
	return b
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

// ContextLength returns the context length for model.
func (b Budget) ContextLength(model string) int {
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

// Limit is the tokens a prompt for model may take: its context length
// (contextLength when the command sets one, else ContextLength) less what
// the answer needs (the request's or command's max_tokens among extra,
// else ReplyReserve), and never under 256.
func (b Budget) Limit(model string, contextLength int, extra []llm.Field) int {
	total := contextLength
	if total <= 0 {
		total = b.ContextLength(model)
	}
	reserve := b.ReplyReserve
	if reserve <= 0 {
		reserve = 1024
	}
	if n := maxTokens(extra); n > 0 {
		reserve = n
	}
	return max(total-reserve, 256)
}

// maxTokens is the answer's max_tokens among the fields sent upstream.
func maxTokens(extra []llm.Field) int {
	for _, f := range extra {
		if f.Key == "max_tokens" || f.Key == "max_completion_tokens" {
			var n int
			if json.Unmarshal(f.Value, &n) == nil {
				return n
			}
		}
	}
	return 0
}

// Tokens estimates the tokens of a prompt, with a small overhead per
// message for the role and separators.
func Tokens(msgs []llm.Message) int {
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

// CutTurns drops the oldest conversation turns worth about need tokens
// (a tool result goes with the call before it) and returns the turns left
// and what it cut, as the budget's log line tells it; none cut, nil.
func CutTurns(turns []llm.Message, need int) ([]llm.Message, []string) {
	dropped, tokens := 0, 0
	for len(turns) > 0 && (tokens < need || turns[0].Role == "tool") {
		tokens += Tokens(turns[:1])
		turns = turns[1:]
		dropped++
	}
	if dropped == 0 {
		return turns, nil
	}
	return turns, []string{fmt.Sprintf("messages: dropped the %d oldest turns (~%d tokens)", dropped, tokens)}
}
