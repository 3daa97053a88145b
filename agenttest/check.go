package agenttest

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/actions"
	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/apierr"
)

// failure is one expectation that did not hold, at the line stating it.
type failure struct {
	pos           agent.Position
	what          string
	expected, got string
	// compared says expected and got are set.
	compared bool
}

// String renders "file:line: what", then expected and got on lines of
// their own.
func (f failure) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: %s\n", f.pos.File, f.pos.Line, f.what)
	if f.compared {
		fmt.Fprintf(&b, "    expected: %s\n         got: %s\n", f.expected, f.got)
	}
	return b.String()
}

// checker checks answers against expectations, collecting failures.
type checker struct {
	file    *File
	update  bool
	read    func(string) ([]byte, error)
	write   func(string, []byte) error
	fails   []failure
	updated int
}

func (c *checker) fail(pos agent.Position, what string) {
	c.fails = append(c.fails, failure{pos: pos, what: what})
}

func (c *checker) differ(pos agent.Position, what, expected, got string) {
	c.fails = append(c.fails, failure{pos: pos, what: what, expected: expected, got: got, compared: true})
}

// answer checks one answer. Without an error expectation, an error fails.
func (c *checker) answer(exp *Expect, ans *answer, at agent.Position) {
	if exp == nil {
		if ans.err != nil {
			c.differ(at, "the answer failed", "no error", errText(ans.err))
		}
		return
	}
	c.errorExp(exp, ans)
	if exp.Text != nil {
		c.match(exp.Text, "text", ans.text.String())
	}
	if exp.Prompt != nil {
		c.prompt(exp.Prompt, 1, ans)
	}
	for i, p := range exp.Prompts {
		if p != nil {
			c.prompt(p, i+1, ans)
		}
	}
	if exp.Actions != nil {
		c.actionList(exp, ans.actions)
	}
	if exp.ToolCalls != nil {
		c.callList(exp, ans.calls)
	}
	if exp.Steps != nil {
		c.stepList(exp, ans.steps)
	}
}

// stepList checks the stubbed steps that ran, in order.
func (c *checker) stepList(exp *Expect, got []madeCall) {
	at := exp.Pos
	if len(exp.Steps) > 0 && exp.Steps[0] != nil {
		at = exp.Steps[0].Pos
	}
	c.madeCount(at, "steps", len(exp.Steps), got)
	for i, e := range exp.Steps {
		if e == nil || i >= len(got) {
			continue
		}
		w := fmt.Sprintf("steps[%d]", i)
		c.textIs(e.ID, w+".id", got[i].Name)
		if e.With != nil {
			c.subset(e.With.Pos, w+".with", e.With.Interface(), any(got[i].Args))
		}
	}
}

// subset checks that want's keys (recursively, for mappings) have got's
// values.
func (c *checker) subset(pos agent.Position, what string, want, got any) {
	wm, ok := want.(map[string]any)
	if !ok {
		if !sameJSON(want, got) {
			c.differ(pos, what, jsonText(want), jsonText(got))
		}
		return
	}
	gm, _ := got.(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(wm)) {
		c.subset(pos, what+"."+k, wm[k], gm[k])
	}
}

func errText(e *apierr.Error) string {
	return e.Code + ": " + e.Message
}

func (c *checker) errorExp(exp *Expect, ans *answer) {
	switch {
	case exp.Error == nil && ans.err != nil:
		c.differ(exp.Pos, "the answer failed", "no error", errText(ans.err))
	case exp.Error != nil && ans.err == nil:
		c.differ(exp.Error.Pos, "error", "an error", "none")
	case exp.Error != nil:
		if t := exp.Error.ErrorCode; t != nil && t.Src != ans.err.Code {
			c.differ(t.Pos, "error.errorCode", t.Src, errText(ans.err))
		}
		if exp.Error.Message != nil {
			c.match(exp.Error.Message, "error.message", ans.err.Message)
		}
	}
}

// match checks got against m; what names it.
func (c *checker) match(m *Match, what, got string) {
	if t := m.Equals; t != nil && got != t.Src {
		c.differ(t.Pos, what+" equals", quote(t.Src), quote(got))
	}
	if t := m.Contains; t != nil && !strings.Contains(got, t.Src) {
		c.differ(t.Pos, what+" contains", quote(t.Src), quote(got))
	}
	if t := m.NotContains; t != nil && strings.Contains(got, t.Src) {
		c.differ(t.Pos, what+" does not contain", quote(t.Src), quote(got))
	}
	if t := m.Matches; t != nil {
		re, err := regexp.Compile(t.Src)
		switch {
		case err != nil:
			c.fail(t.Pos, fmt.Sprintf("%s matches: %v", what, err))
		case !re.MatchString(got):
			c.differ(t.Pos, what+" matches", "/"+t.Src+"/", quote(got))
		}
	}
}

// quote shows a string as Go would write it, so that newlines and spaces
// are seen.
func quote(s string) string { return fmt.Sprintf("%q", s) }

// textIs checks one field against an expected text.
func (c *checker) textIs(t *agent.Text, what, got string) {
	if t != nil && t.Src != got {
		c.differ(t.Pos, what, quote(t.Src), quote(got))
	}
}

// prompt checks the n-th request sent upstream (p.Call when set).
func (c *checker) prompt(p *PromptExpect, n int, ans *answer) {
	if p.Call > 0 {
		n = p.Call
	}
	what := "prompt"
	if n > 1 {
		what = fmt.Sprintf("prompt of call %d", n)
	}
	if n > len(ans.prompts) {
		c.differ(p.Pos, what, fmt.Sprintf("model call %d", n), fmt.Sprintf("%d calls", len(ans.prompts)))
		return
	}
	call := ans.prompts[n-1]
	c.textIs(p.Model, what+".model", call.Model)
	if p.Messages != nil {
		if len(p.Messages) != len(call.Messages) {
			at := p.Pos
			if len(p.Messages) > 0 && p.Messages[0] != nil {
				at = p.Messages[0].Pos
			}
			c.differ(at, what+".messages: count", fmt.Sprint(len(p.Messages)), fmt.Sprintf("%d: %s", len(call.Messages), roles(call.Messages)))
		}
		for i, m := range p.Messages {
			if m == nil || i >= len(call.Messages) {
				continue
			}
			got := call.Messages[i]
			w := fmt.Sprintf("%s.messages[%d]", what, i)
			c.textIs(m.Role, w+".role", got.Role)
			c.match(&Match{Contains: m.Contains, NotContains: m.NotContains, Equals: m.Equals, Matches: m.Matches}, w, got.Content)
		}
	}
	if p.Tools != nil {
		at := p.Pos
		if len(p.Tools) > 0 && p.Tools[0] != nil {
			at = p.Tools[0].Pos
		}
		want := make([]string, 0, len(p.Tools))
		for _, t := range p.Tools {
			if t != nil {
				want = append(want, t.Src)
			}
		}
		if !reflect.DeepEqual(want, append([]string{}, call.Tools...)) {
			c.differ(at, what+".tools", strings.Join(want, ", "), strings.Join(call.Tools, ", "))
		}
	}
	if p.Golden != nil {
		c.golden(p.Golden, what, call.Body)
	}
}

func roles(ms []wireMessage) string {
	rs := make([]string, len(ms))
	for i, m := range ms {
		rs[i] = m.Role
	}
	return strings.Join(rs, ", ")
}

// actionList checks the emitted actions, in order.
func (c *checker) actionList(exp *Expect, got []*actions.Action) {
	if len(exp.Actions) != len(got) {
		c.differ(listPos(exp, firstPos(exp.Actions)), "actions: count", fmt.Sprint(len(exp.Actions)), fmt.Sprintf("%d: %s", len(got), describeActions(got)))
	}
	for i, a := range exp.Actions {
		if a == nil || i >= len(got) {
			continue
		}
		c.action(a, fmt.Sprintf("actions[%d]", i), got[i])
	}
}

// listPos is where a list's count is reported: its first item, else the
// expectation.
func listPos(exp *Expect, first *agent.Position) agent.Position {
	if first != nil {
		return *first
	}
	return exp.Pos
}

func firstPos(as []*ActionExpect) *agent.Position {
	if len(as) > 0 && as[0] != nil {
		return &as[0].Pos
	}
	return nil
}

func describeActions(as []*actions.Action) string {
	if len(as) == 0 {
		return "none"
	}
	out := make([]string, len(as))
	for i, a := range as {
		switch {
		case a.Confirm != nil:
			out[i] = fmt.Sprintf("confirm %q", a.Confirm.Title)
		case a.Tree != nil:
			out[i] = fmt.Sprintf("tree %q (%d nodes)", a.Tree.TreeID, len(a.Tree.Nodes))
		default:
			out[i] = a.Kind
		}
	}
	return strings.Join(out, ", ")
}

func (c *checker) action(a *ActionExpect, what string, got *actions.Action) {
	c.textIs(a.Action, what+".action", got.Kind)
	if got.Confirm != nil {
		c.textIs(a.Title, what+".title", got.Confirm.Title)
		c.textIs(a.Command, what+".command", got.Confirm.Command)
		c.textIs(a.Prompt, what+".prompt", got.Confirm.Prompt)
	} else if a.Title != nil || a.Command != nil || a.Prompt != nil {
		c.differ(a.Pos, what, "a confirm", describeActions([]*actions.Action{got}))
	}
	if got.Tree == nil {
		if a.TreeID != nil || a.Nodes != nil {
			c.differ(a.Pos, what, "a tree", describeActions([]*actions.Action{got}))
		}
		return
	}
	c.textIs(a.TreeID, what+".treeId", got.Tree.TreeID)
	c.textIs(a.RootPID, what+".rootPId", got.Tree.RootPID)
	if a.Nodes == nil {
		return
	}
	if len(a.Nodes) != len(got.Tree.Nodes) {
		ids := make([]string, len(got.Tree.Nodes))
		for i, n := range got.Tree.Nodes {
			ids[i] = n.ID
		}
		c.differ(a.Pos, what+".nodes: count", fmt.Sprint(len(a.Nodes)), fmt.Sprintf("%d: %s", len(ids), orNone(ids)))
	}
	for i, n := range a.Nodes {
		if n == nil || i >= len(got.Tree.Nodes) {
			continue
		}
		g, w := got.Tree.Nodes[i], fmt.Sprintf("%s.nodes[%d]", what, i)
		c.textIs(n.ID, w+".id", g.ID)
		c.textIs(n.PID, w+".pId", g.PID)
		c.textIs(n.Type, w+".type", g.Type)
		c.textIs(n.Name, w+".name", g.Name)
		c.textIs(n.Description, w+".description", g.Description)
		if n.Labels != nil {
			want := make([]string, 0, len(n.Labels))
			for _, l := range n.Labels {
				if l != nil {
					want = append(want, l.Src)
				}
			}
			if strings.Join(want, "\x00") != strings.Join(g.Labels, "\x00") || len(want) != len(g.Labels) {
				c.differ(n.Pos, w+".labels", fmt.Sprint(want), fmt.Sprint(g.Labels))
			}
		}
	}
}

// madeCount checks that the list what, stated at at, expects as many
// entries as were made.
func (c *checker) madeCount(at agent.Position, what string, want int, got []madeCall) {
	if want == len(got) {
		return
	}
	names := make([]string, len(got))
	for i, g := range got {
		names[i] = g.Name
	}
	c.differ(at, what+": count", fmt.Sprint(want), fmt.Sprintf("%d: %s", len(got), orNone(names)))
}

// callList checks the tool calls made, in order.
func (c *checker) callList(exp *Expect, got []madeCall) {
	at := exp.Pos
	if len(exp.ToolCalls) > 0 && exp.ToolCalls[0] != nil {
		at = exp.ToolCalls[0].Pos
	}
	c.madeCount(at, "toolCalls", len(exp.ToolCalls), got)
	for i, e := range exp.ToolCalls {
		if e == nil || i >= len(got) {
			continue
		}
		w := fmt.Sprintf("toolCalls[%d]", i)
		c.textIs(e.Name, w+".name", got[i].Name)
		if e.Arguments == nil {
			continue
		}
		c.subset(e.Arguments.Pos, w+".arguments", e.Arguments.Interface(), any(got[i].Args))
	}
}

// sameJSON compares two values as JSON.
func sameJSON(a, b any) bool { return jsonText(a) == jsonText(b) }

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
