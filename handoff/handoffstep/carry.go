package handoffstep

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/agentgw/agentgw/conversation"
	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/internal/runes"
	"github.com/agentgw/agentgw/plan"
)

// Bounds of what a message carries of the run that sends it.
const (
	// MaxPreviousActions is how many of the run's completed steps (the
	// latest) become context.previous_actions.
	MaxPreviousActions = 20
	// MaxInteractions is how many of the conversation's turns (the latest)
	// become context.user_interaction_history.
	MaxInteractions = 10
	// maxDetails clips a previous action's details and an interaction's
	// content, in bytes.
	maxDetails = 500
)

// History gives the turns of a stored conversation as a message's
// context.user_interaction_history. A Sender that is also a History fills
// it for the messages sent from a run that continues a conversation; one
// it cannot read (it logs why) it leaves without.
type History interface {
	Interactions(ctx context.Context, contextID, owner string) []handoff.UserInteraction
}

// Conversations reads stored conversations (package conversation's Repo).
type Conversations interface {
	Get(ctx context.Context, id, owner string) (*conversation.Context, error)
	Changes(ctx context.Context, id, owner string, since int64) (*conversation.Changes, error)
}

// Interactions is the user interaction history of conversation id: its
// latest MaxInteractions user and assistant turns with text, as the seed's
// CHAT_MESSAGE entries (sender "User" or "Agent"), each at the time it was
// written (Message.Time); a turn kept before the gateway recorded times
// takes the time its change was logged (when the log no longer has it,
// the context's creation: the turn is older than the log), content
// clipped.
func Interactions(ctx context.Context, convs Conversations, id, owner string) ([]handoff.UserInteraction, error) {
	c, err := convs.Get(ctx, id, owner)
	if err != nil {
		return nil, err
	}
	log, err := convs.Changes(ctx, id, owner, 0)
	if err != nil {
		return nil, err
	}
	// The log's added messages with their times, aligned with the stored
	// messages from the end (the oldest may have been dropped from either).
	type added struct {
		m  conversation.Message
		at time.Time
	}
	var logged []added
	for _, ch := range log.Changes {
		if ch.Operation == conversation.OpAddMessage {
			for _, m := range ch.Messages {
				logged = append(logged, added{m, ch.At})
			}
		}
	}
	at := make([]time.Time, len(c.Messages))
	for i, j := len(c.Messages)-1, len(logged)-1; i >= 0; i-- {
		if t := c.Messages[i].Time; !t.IsZero() {
			at[i] = t
			continue
		}
		at[i] = c.CreatedAt
		for ; j >= 0; j-- {
			if l := logged[j].m; l.Role == c.Messages[i].Role && l.Content == c.Messages[i].Content {
				at[i] = logged[j].at
				j--
				break
			}
		}
	}
	var out []handoff.UserInteraction
	for i, m := range c.Messages {
		sender := map[string]string{"user": "User", "assistant": "Agent"}[m.Role]
		if sender == "" || strings.TrimSpace(m.Content) == "" {
			continue
		}
		out = append(out, handoff.UserInteraction{Type: "CHAT_MESSAGE", Sender: sender,
			Content: runes.Clip(m.Content, maxDetails), Timestamp: at[i].UTC().Truncate(time.Millisecond)})
	}
	if len(out) > MaxInteractions {
		out = out[len(out)-MaxInteractions:]
	}
	return out, nil
}

// previousActions are the steps of a plan that completed before the step
// self sends, oldest first (the latest MaxPreviousActions): action_type
// STEP_COMPLETED, details "step ID: " and its result as JSON (clipped),
// the time it finished, and the step's id as step_id.
func previousActions(sc *plan.Scope, self string) []handoff.PreviousAction {
	if sc == nil {
		return nil
	}
	var out []handoff.PreviousAction
	for id, rec := range sc.Steps {
		finished, _ := rec["finished"].(string)
		t, err := time.Parse(time.RFC3339Nano, finished)
		if id == self || rec["status"] != string(plan.Completed) || err != nil {
			continue
		}
		details := "step " + id
		if res, err := json.Marshal(rec["result"]); err == nil && rec["result"] != nil {
			details += ": " + string(res)
		}
		sid, _ := json.Marshal(id)
		out = append(out, handoff.PreviousAction{ActionType: "STEP_COMPLETED", Details: runes.Clip(details, maxDetails),
			Timestamp: t.UTC().Truncate(time.Millisecond), Extra: map[string]json.RawMessage{"step_id": sid}})
	}
	slices.SortFunc(out, func(a, b handoff.PreviousAction) int {
		return cmp.Or(a.Timestamp.Compare(b.Timestamp), strings.Compare(string(a.Extra["step_id"]), string(b.Extra["step_id"])))
	})
	if len(out) > MaxPreviousActions {
		out = out[len(out)-MaxPreviousActions:]
	}
	return out
}
