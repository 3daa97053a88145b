package handoff

import (
	"fmt"
	"strings"
	"time"
)

// Prompt is the user input of a run that receives m, for commands whose
// templates do not read .handoff themselves: the type, sender, task and
// priority, the data, then whatever the message says of its context and
// what it asks (next steps, workflow state, summary, previous actions,
// user interaction history, required actions, constraints, success
// criteria), each on its own lines and only when set.
func (m *Message) Prompt() string {
	md := m.Metadata
	var b strings.Builder
	fmt.Fprintf(&b, "%s hand-off from %s (task %s, priority %s):\n", m.Payload.Type, md.SenderID, md.TaskID, md.Priority)
	b.Write(m.Payload.Data)
	in, c := m.Instructions, m.Context
	line := func(label, s string) {
		if s != "" {
			b.WriteString("\n" + label + ": " + s)
		}
	}
	line("Next steps", in.NextStepsSuggestion)
	line("Workflow state", c.WorkflowState)
	line("Summary", c.HistoricalDataSummary)
	if len(c.PreviousActions) > 0 {
		b.WriteString("\nPrevious actions:")
		for _, a := range c.PreviousActions {
			fmt.Fprintf(&b, "\n- %s %s: %s", stamp(a.Timestamp), a.ActionType, a.Details)
		}
	}
	if len(c.UserInteractionHistory) > 0 {
		b.WriteString("\nUser interaction history:")
		for _, u := range c.UserInteractionHistory {
			fmt.Fprintf(&b, "\n- %s %s: %s", stamp(u.Timestamp), u.Sender, u.Content)
		}
	}
	line("Required actions", strings.Join(in.RequiredActions, ", "))
	if len(in.Constraints) > 0 && string(in.Constraints) != "{}" && string(in.Constraints) != "null" {
		line("Constraints", string(in.Constraints))
	}
	line("Success criteria", in.SuccessCriteria)
	return b.String()
}

// stamp is a time as the prompt shows it.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
