package handoffstep

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// MaxWait bounds how long a step or the tool waits for an answer.
const MaxWait = 10 * time.Minute

// Answer is where a message sent stands: its status, and once it is final
// (COMPLETED, DELIVERED, FAILED, EXPIRED, DEAD), the agent that ran it and
// what it answered, or why it failed.
type Answer struct {
	Status, Agent, Text, Error string
	Final                      bool
}

// Awaiter reads where a message sent stands. A Sender that is also an
// Awaiter lets steps and the tool wait for the receiver's answer.
type Awaiter interface {
	Answer(ctx context.Context, messageID string) (*Answer, error)
}

// pollEvery is how often Await looks again.
const pollEvery = 100 * time.Millisecond

// Await waits up to d for the message's answer: the final answer, or the
// last seen (Final false) when d passed first.
func Await(ctx context.Context, a Awaiter, messageID string, d time.Duration) (*Answer, error) {
	deadline := time.Now().Add(d)
	for {
		ans, err := a.Answer(ctx, messageID)
		if err != nil {
			return nil, fmt.Errorf("waiting for hand-off %s: %w", messageID, err)
		}
		left := time.Until(deadline)
		if ans.Final || left <= 0 {
			return ans, nil
		}
		select {
		case <-ctx.Done():
			return ans, nil
		case <-time.After(min(pollEvery, left)):
		}
	}
}

// Waited is what the user reads after waiting d for the answer to a
// message sent: the receiver's answer when it came in time, else where to
// find it.
func Waited(st *Sent, ans *Answer, d time.Duration) string {
	switch {
	case ans.Final && ans.Error == "" && ans.Status == "COMPLETED":
		text := strings.TrimRight(ans.Text, "\n")
		return fmt.Sprintf("> %s answered:\n%s\n", ans.Agent, text)
	case ans.Final && ans.Error == "":
		return fmt.Sprintf("> the hand-off is %s (GET /handoffs/%s)\n", ans.Status, st.MessageID)
	case ans.Final:
		return fmt.Sprintf("> the hand-off ended %s: %s (GET /handoffs/%s)\n", ans.Status, ans.Error, st.MessageID)
	}
	return fmt.Sprintf("> no answer within %s (still %s): its answer will be at GET /handoffs/%s (task %s)\n",
		d, ans.Status, st.MessageID, st.TaskID)
}
