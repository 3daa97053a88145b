package openaiapi

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent/emit"
)

// maxDepth is the deepest a tree is indented; deeper nodes are listed at
// that depth.
const maxDepth = 12

// markdown renders what a chat client cannot show as Markdown for the end
// of the answer: each confirm as its title and what it would do, each tree
// as a nested list, each frontend tool call as a note that it was not run.
// agentName names the models a confirm's command is reached by here.
func markdown(agentName string, as []*actions.Action, calls []*emit.ToolCallFrame) string {
	var b strings.Builder
	for _, a := range as {
		switch {
		case a.Confirm != nil:
			confirmMarkdown(&b, agentName, a.Confirm)
		case a.Tree != nil:
			treeMarkdown(&b, a.Tree)
		}
	}
	for _, c := range calls {
		args, _ := json.Marshal(c.Parameters)
		fmt.Fprintf(&b, "\n> The agent asked the IDE to run the tool `%s` with `%s`; this client cannot, so the answer ends here.\n", tick(c.Name), tick(string(args)))
	}
	return b.String()
}

// confirmMarkdown writes a confirm: its title in bold, its message, and
// what clicking it would do.
func confirmMarkdown(b *strings.Builder, agentName string, c *actions.Confirm) {
	fmt.Fprintf(b, "\n**%s**", escape(c.Title))
	if m := strings.TrimSpace(c.Message); m != "" {
		fmt.Fprintf(b, ": %s", escape(m))
	}
	switch {
	case c.Command != "":
		fmt.Fprintf(b, " (runs the command `%s`: the model `%s/%s` here)\n", tick(c.Command), tick(agentName), tick(c.Command))
	case c.Prompt != "":
		fmt.Fprintf(b, " (asks: %s)\n", escape(c.Prompt))
	default:
		b.WriteString(" (a button of the IDE plugins; it cannot be clicked here)\n")
	}
}

// treeMarkdown writes a tree as a nested list, from its top-level nodes
// down; nodes no path from the top reaches are left out.
func treeMarkdown(b *strings.Builder, t *actions.Tree) {
	children := map[string][]int{}
	for i, n := range t.Nodes {
		children[n.PID] = append(children[n.PID], i)
	}
	seen := make([]bool, len(t.Nodes))
	type item struct{ node, depth int }
	var stack []item
	push := func(pid string, depth int) {
		kids := children[pid]
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, item{kids[i], depth})
		}
	}
	b.WriteByte('\n')
	push(t.RootPID, 0)
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[it.node] {
			continue
		}
		seen[it.node] = true
		n := t.Nodes[it.node]
		fmt.Fprintf(b, "%s- **%s**", strings.Repeat("  ", min(it.depth, maxDepth)), escape(n.Name))
		if d := strings.TrimSpace(n.Description); d != "" {
			fmt.Fprintf(b, ": %s", escape(d))
		}
		if len(n.Labels) > 0 {
			labels := make([]string, len(n.Labels))
			for i, l := range n.Labels {
				labels[i] = "`" + tick(l) + "`"
			}
			fmt.Fprintf(b, " %s", strings.Join(labels, " "))
		}
		b.WriteByte('\n')
		if n.ID != t.RootPID {
			push(n.ID, it.depth+1)
		}
	}
}

// mdEscaper escapes what Markdown would read as markup, and folds line
// breaks, which would end a list item.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "<", `\<`, ">", `\>`, "#", `\#`,
	"\r\n", " ", "\n", " ", "\r", " ",
)

func escape(s string) string { return mdEscaper.Replace(s) }

// tick makes s safe inside a code span: no backticks, one line.
func tick(s string) string {
	return strings.NewReplacer("`", "'", "\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}
