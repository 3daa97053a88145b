package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// taskMessage is a message of GET /tasks/{id}, as chat shows it.
type taskMessage struct {
	MessageID  string   `json:"message_id"`
	Status     string   `json:"status"`
	Recipients []string `json:"recipients"`
	Error      string   `json:"error"`
	Result     struct {
		Agent   string `json:"agent"`
		Command string `json:"command"`
		Text    string `json:"text"`
	} `json:"result"`
	Message struct {
		Metadata struct {
			SenderID string `json:"sender_id"`
		} `json:"metadata"`
		Payload struct {
			Type string `json:"handoff_type"`
		} `json:"payload"`
	} `json:"message"`
}

// showTask prints the messages of a hand-off task (--task): who handed
// what to whom, where it is, and what the recipient answered.
func (c *chatClient) showTask(ctx context.Context, task string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.endpoint("/tasks/"+url.PathEscape(task)), nil)
	if err != nil {
		return fmt.Errorf("building the task request: %w", err)
	}
	c.authorize(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("reaching the gateway: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errorResponse(resp)
	}
	var t struct {
		TaskID   string        `json:"task_id"`
		Messages []taskMessage `json:"messages"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&t); err != nil {
		return fmt.Errorf("reading task %s: %w", task, err)
	}
	fmt.Fprintf(c.out, "task %s: %d messages\n", t.TaskID, len(t.Messages))
	for i, m := range t.Messages {
		fmt.Fprintf(c.out, "\n%d. %s %s → %s: %s (%s)\n", i+1, m.Message.Payload.Type, m.Message.Metadata.SenderID,
			strings.Join(m.Recipients, ", "), m.Status, m.MessageID)
		if m.Error != "" {
			fmt.Fprintf(c.out, "   error: %s\n", m.Error)
		}
		if m.Result.Text != "" {
			fmt.Fprintf(c.out, "   %s/%s answered:\n%s\n", m.Result.Agent, m.Result.Command, indentLines(m.Result.Text, "   "))
		}
	}
	return nil
}

// indentLines puts prefix before every line of s.
func indentLines(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}
