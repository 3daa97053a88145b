package chat

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentgw/agentgw/llm"
	"github.com/agentgw/agentgw/sse"
)

// streamRenderer prints an agent's SSE answer for a terminal: text as it
// arrives, actions as readable blocks, errors with their hints.
type streamRenderer struct {
	out    io.Writer
	failed bool
	done   bool
	// lastNewline tracks whether the text so far ended a line.
	lastNewline bool
	// keep, when set, keeps the confirm and tree actions in actions for the
	// choices instead of printing them.
	keep    bool
	actions []wireAction
	// calls are the answer's tool calls, in order.
	calls []wireToolCall
}

func (r *streamRenderer) render(body io.Reader) error {
	rd := sse.NewReader(body)
	r.lastNewline = true
	for {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("reading the stream: %w", err)
		}
		switch ev.Name {
		case "", "message":
			r.data(ev.Data)
		case "copilot_action":
			r.action(ev.Data)
		case "copilot_error":
			r.error(ev.Data)
		case "copilot_tool_call":
			r.toolCall(ev.Data)
		}
	}
	r.newline()
	if !r.done {
		return errors.New("the stream ended without its terminator")
	}
	return nil
}

func (r *streamRenderer) data(data []byte) {
	s := string(data)
	if s == "[DONE]" || s == "[Done]" {
		r.done = true
		return
	}
	if text := llm.ChunkText(data); text != "" {
		fmt.Fprint(r.out, text)
		r.lastNewline = strings.HasSuffix(text, "\n")
	}
}

func (r *streamRenderer) newline() {
	if !r.lastNewline {
		fmt.Fprintln(r.out)
		r.lastNewline = true
	}
}

func (r *streamRenderer) action(data []byte) {
	var a wireAction
	if err := json.Unmarshal(data, &a); err != nil {
		r.newline()
		fmt.Fprintf(r.out, "[unreadable action: %v]\n", err)
		return
	}
	if r.keep && (a.Action == "confirm" || a.Action == "tree") {
		r.actions = append(r.actions, a)
		return
	}
	r.newline()
	switch a.Action {
	case "confirm":
		fmt.Fprintf(r.out, "\n  [ %s ]  %s%s\n", a.Data.Title, a.Data.Message, follow(a.Data.Command, a.Data.Prompt, ""))
	case "tree":
		fmt.Fprintf(r.out, "\n  tree %s:\n", a.Data.TreeID)
		walkTree(a.Data.Nodes, a.Data.RootPID, func(n treeNode, depth int) {
			fmt.Fprintf(r.out, "    %s- %s\n", strings.Repeat("  ", depth), n.label())
		})
		for _, na := range a.Data.NodeActions {
			fmt.Fprintf(r.out, "    (%s on %s nodes%s)\n", na.NodeAction, na.NodeType, follow(na.Command, na.Prompt, na.PromptByNodeProperty))
		}
	default:
		fmt.Fprintf(r.out, "  [%s action]\n", a.Action)
	}
}

// toolCall keeps a tool call; one that cannot be answered (no callId) is
// shown and left out.
func (r *streamRenderer) toolCall(data []byte) {
	var c wireToolCall
	err := json.Unmarshal(data, &c)
	if err == nil && c.CallID == "" {
		err = errors.New("it has no callId")
	}
	if err != nil {
		r.newline()
		fmt.Fprintf(r.out, "[unreadable tool call: %v]\n", err)
		return
	}
	r.calls = append(r.calls, c)
}

// follow describes what clicking does.
func follow(command, prompt, byProperty string) string {
	switch {
	case command != "":
		return " → runs command " + command
	case prompt != "":
		return fmt.Sprintf(" → asks %q", prompt)
	case byProperty != "":
		return " → asks the node's " + byProperty
	}
	return " → sends feedback"
}

func (r *streamRenderer) error(data []byte) {
	r.failed = true
	var e struct {
		ErrorCode, Message, SuggestedAction string
	}
	r.newline()
	if json.Unmarshal(data, &e) != nil || (e.ErrorCode == "" && e.Message == "") {
		fmt.Fprintf(r.out, "\nerror: %s\n", data)
		return
	}
	fmt.Fprintf(r.out, "\nerror %s: %s\n", e.ErrorCode, e.Message)
	if e.SuggestedAction != "" {
		fmt.Fprintf(r.out, "  hint: %s\n", e.SuggestedAction)
	}
}
