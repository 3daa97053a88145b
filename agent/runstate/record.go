package runstate

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/jsonnum"
	"github.com/agentgw/agentgw/llm"
)

// DefaultPauseTTL is how long a paused run waits for its answer.
const DefaultPauseTTL = time.Hour

// KindPlan is the Kind of a paused plan.
const KindPlan = "plan"

// PendingCall is a tool call waiting for the user's consent or the IDE.
type PendingCall struct {
	Index    int          `json:"index"` // in the round's calls
	Call     llm.ToolCall `json:"call"`
	Frontend bool         `json:"frontend,omitempty"`
	// ClientID is the id the IDE answers a frontend call with.
	ClientID string `json:"clientId,omitempty"`
}

// Record is a paused run, a model conversation or a plan, kept in the
// store so that any replica sharing it can resume it.
type Record struct {
	ID string `json:"id"`
	// Kind is "" for a model conversation, KindPlan for a plan.
	Kind     string         `json:"kind,omitempty"`
	Endpoint string         `json:"endpoint"`
	Agent    string         `json:"agent"`
	Command  string         `json:"command"`
	Model    string         `json:"model"`
	Params   map[string]any `json:"params,omitempty"`
	Stream   bool           `json:"stream"`
	Tools    []string       `json:"tools"`
	Messages []llm.Message  `json:"messages"`
	Calls    []llm.ToolCall `json:"calls"`
	Results  []string       `json:"results"` // per call; "" while waiting
	Waiting  []PendingCall  `json:"waiting"`
	Round    int            `json:"round"`
	// Fallbacks are the conversation's fallback models, nil for the
	// gateway's.
	Fallbacks []string `json:"fallbacks,omitempty"`
	// A paused plan: the step that waits, the plan's state, and the
	// results of the steps that completed.
	Step  string         `json:"step,omitempty"`
	State map[string]any `json:"state,omitempty"`
	Done  map[string]any `json:"done,omitempty"`
	// Start is the index in Messages of the command's own answer (see the
	// runner's toolLoop.start).
	Start int `json:"start,omitempty"`
	// Conv is the turn so far of the conversation the run continues.
	Conv json.RawMessage `json:"conv,omitempty"`
}

// Decode decodes a stored paused run. Its free-form values (the model's
// parameters, the plan's state, the completed steps' results) come back
// as JSON-shaped data with whole numbers as ints, as they were before the
// pause, so that templates print 10000000, not 1e+07.
func Decode(data []byte) (*Record, error) {
	var rec Record
	if err := jsonnum.Decode(data, &rec); err != nil {
		return nil, fmt.Errorf("decoding a paused run: %w", err)
	}
	for _, m := range []map[string]any{rec.Params, rec.State, rec.Done} {
		for k, v := range m {
			m[k] = jsonnum.Normalize(v)
		}
	}
	return &rec, nil
}

// NoStore is the error of a run that would pause on a gateway without a
// store for paused runs; what is what it waits for.
func NoStore(what string) *apierr.Error {
	return apierr.New(apierr.CodeToolFailed, what+", and this gateway keeps no store for paused runs")
}
