package agenttest

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentgw/agentgw/agent"
)

// File is one *_test.yaml file: the agent it tests and its tests.
type File struct {
	// Path is the file as named in reports.
	Path string `yaml:"-"`
	// Agent names the agent under test; empty means the agent of the
	// definition file of the same stem (hello_test.yaml: hello.yaml), or
	// the only agent of the directory.
	Agent string  `yaml:"agent"`
	Tests []*Test `yaml:"tests"`
}

// Test is one test: a request, what the model and the stubs answer, and
// what is expected of the answer; Then are further requests of the same
// conversation, typically clicks on the actions the previous answer emitted.
type Test struct {
	Pos     agent.Position
	Name    string    `yaml:"name"`
	Request Request   `yaml:"request"`
	Model   []*Answer `yaml:"model"`
	// Tools stub the tools the model calls, by name (NAME: {result} or
	// {error}); a tool called without a stub fails the test.
	Tools *agent.Value `yaml:"tools"`
	// Steps stub plan steps by id (git, tool, handoff, ask, recall steps).
	Steps  *agent.Value `yaml:"steps"`
	Expect *Expect      `yaml:"expect"`
	Then   []*Step      `yaml:"then"`

	// tools and steps are Tools and Steps decoded.
	tools map[string]*Stub
	steps map[string]*Stub
	// modelPos is where model: is written, for unused answers.
	modelPos agent.Position
}

// Request is what the plugin sends. Action, on the test's first request,
// clicks an action the same request without it emitted.
type Request struct {
	Pos              agent.Position
	Command          *agent.Text `yaml:"command"`
	ContextVariables []*Variable `yaml:"contextVariables"`
	Messages         []*Message  `yaml:"messages"`
	Action           *Click      `yaml:"action"`
	// Model is the request's own "model" field.
	Model string `yaml:"model"`
	// ContextID names a stored conversation (contextId).
	ContextID string `yaml:"contextId"`
	// Handoff is a hand-off message (seed 001) the command runs for, as
	// the hub delivers it: templates see it as .handoff, plans as
	// $handoff. Name the command the agent's handoffs: map its type to.
	Handoff *agent.Value `yaml:"handoff"`
}

// Step is a further request of a test: a click on an action of the
// previous answer, or a new request (command, variables, messages) in the
// same conversation; what it does not set is the test's request's.
type Step struct {
	Request `yaml:",inline"`
	Expect  *Expect `yaml:"expect"`
}

// Variable is a context variable {name, value}.
type Variable struct {
	Pos   agent.Position
	Name  string       `yaml:"name"`
	Value *agent.Value `yaml:"value"`
}

// Message is a turn of the conversation {role, content}.
type Message struct {
	Role    string `yaml:"role"`
	Content string `yaml:"content"`
}

// Click is a click on an action the previous answer emitted: a confirm by
// its title (or the only one), a tree node by its id. Accepted is false to
// dismiss a confirm. The click does what the plugin would: a confirm or node
// action with a command or prompt starts a normal request, one without
// sends feedback with the action's signed state.
type Click struct {
	Pos agent.Position
	// Title picks a confirm action by its title.
	Title string `yaml:"title"`
	// Action is "confirm" or "tree"; empty means the kind Title or NodeID
	// implies.
	Action   string `yaml:"action"`
	Accepted *bool  `yaml:"accepted"`
	// TreeID picks a tree (default: the only one, or the last).
	TreeID string `yaml:"treeId"`
	NodeID string `yaml:"nodeId"`
	// NodeAction is the gesture: click (default) or expand.
	NodeAction string `yaml:"nodeAction"`
}

// Answer is one recorded model answer: text, tool calls, or an upstream
// failure (status and message).
type Answer struct {
	Pos       agent.Position
	Text      *agent.Text `yaml:"text"`
	ToolCalls []*Call     `yaml:"toolCalls"`
	// Status answers with this HTTP status and Error as the message.
	Status int    `yaml:"status"`
	Error  string `yaml:"error"`
}

// Call is a tool call {name, arguments}; arguments are an object or its
// JSON text.
type Call struct {
	Pos       agent.Position
	Name      string       `yaml:"name"`
	Arguments *agent.Value `yaml:"arguments"`
}

// Stub is what a stubbed tool or step returns: its result, or an error.
type Stub struct {
	Pos    agent.Position
	Result *agent.Value `yaml:"result"`
	Error  *StubError   `yaml:"error"`
}

// StubError is a stub's failure: a tool's result error code (TOOL_FAILED
// when empty) or a step's error code, and the message.
type StubError struct {
	Code      string `yaml:"code"`
	ErrorCode string `yaml:"errorCode"`
	Message   string `yaml:"message"`
}

// Expect is what an answer must be; every part is optional.
type Expect struct {
	Pos       agent.Position
	Text      *Match          `yaml:"text"`
	Prompt    *PromptExpect   `yaml:"prompt"`
	Prompts   []*PromptExpect `yaml:"prompts"`
	Actions   []*ActionExpect `yaml:"actions"`
	Error     *ErrorExpect    `yaml:"error"`
	ToolCalls []*CallExpect   `yaml:"toolCalls"`
	// Steps are the stubbed plan steps that ran, in order.
	Steps []*StepExpect `yaml:"steps"`
}

// StepExpect checks a stubbed plan step that ran: its id and, of its
// rendered inputs (with:), the keys given.
type StepExpect struct {
	Pos  agent.Position
	ID   *agent.Text  `yaml:"id"`
	With *agent.Value `yaml:"with"`
}

// Match checks a string: each of contains, equals and matches (a Go
// regular expression) that is set must hold; notContains must not.
type Match struct {
	Pos         agent.Position
	Contains    *agent.Text `yaml:"contains"`
	NotContains *agent.Text `yaml:"notContains"`
	Equals      *agent.Text `yaml:"equals"`
	Matches     *agent.Text `yaml:"matches"`
}

// PromptExpect checks a request the gateway sent the model: by default the
// first of the answer, Call (from 1) picks another. Golden names a file,
// relative to the test file, holding the whole request body.
type PromptExpect struct {
	Pos      agent.Position
	Call     int              `yaml:"call"`
	Model    *agent.Text      `yaml:"model"`
	Messages []*MessageExpect `yaml:"messages"`
	Tools    []*agent.Text    `yaml:"tools"`
	Golden   *agent.Text      `yaml:"golden"`
}

// MessageExpect checks one message of a prompt, in order.
type MessageExpect struct {
	Pos         agent.Position
	Role        *agent.Text `yaml:"role"`
	Contains    *agent.Text `yaml:"contains"`
	NotContains *agent.Text `yaml:"notContains"`
	Equals      *agent.Text `yaml:"equals"`
	Matches     *agent.Text `yaml:"matches"`
}

// ActionExpect checks one emitted action, in order.
type ActionExpect struct {
	Pos     agent.Position
	Action  *agent.Text   `yaml:"action"`
	Title   *agent.Text   `yaml:"title"`
	Command *agent.Text   `yaml:"command"`
	Prompt  *agent.Text   `yaml:"prompt"`
	TreeID  *agent.Text   `yaml:"treeId"`
	RootPID *agent.Text   `yaml:"rootPId"`
	Nodes   []*NodeExpect `yaml:"nodes"`
}

// NodeExpect checks one node of a tree action, in order; fields not given
// are not checked.
type NodeExpect struct {
	Pos         agent.Position
	ID          *agent.Text   `yaml:"id"`
	PID         *agent.Text   `yaml:"pId"`
	Type        *agent.Text   `yaml:"type"`
	Name        *agent.Text   `yaml:"name"`
	Description *agent.Text   `yaml:"description"`
	Labels      []*agent.Text `yaml:"labels"`
}

// ErrorExpect checks the answer's error: its code and message.
type ErrorExpect struct {
	Pos       agent.Position
	ErrorCode *agent.Text `yaml:"errorCode"`
	Message   *Match      `yaml:"message"`
}

// CallExpect checks one tool call the run made, in order.
type CallExpect struct {
	Pos       agent.Position
	Name      *agent.Text  `yaml:"name"`
	Arguments *agent.Value `yaml:"arguments"`
}

// IsTestFile reports whether name is a test file: *_test.yaml or
// *_test.yml.
func IsTestFile(name string) bool {
	base := strings.ToLower(filepath.Base(name))
	return strings.HasSuffix(base, "_test.yaml") || strings.HasSuffix(base, "_test.yml")
}

// Parse decodes a test file strictly; every problem is a diagnostic with
// its position.
func Parse(path string, data []byte) (*File, agent.Diagnostics) {
	var diags agent.Diagnostics
	d := &agent.NodeDecoder{File: path, Diags: &diags}
	f := &File{Path: path}
	if err := d.DecodeYAML(data, f, "test file"); err != nil {
		diags.Add(agent.SeverityError, agent.YAMLErrorPos(path, data, err), agent.YAMLErrorMessage(err))
		return nil, diags
	}
	if len(f.Tests) == 0 && diags.Errors() == 0 {
		diags.Add(agent.SeverityError, agent.Position{File: path, Line: 1, Column: 1}, "no tests: the file needs tests: [{name, request, expect}]")
	}
	names := map[string]agent.Position{}
	for i, t := range f.Tests {
		if t == nil {
			continue
		}
		where := fmt.Sprintf("tests[%d]", i)
		if t.Name == "" {
			diags.Add(agent.SeverityError, t.Pos, where+": name is required")
		} else if prev, dup := names[t.Name]; dup {
			diags.Add(agent.SeverityError, t.Pos, fmt.Sprintf("%s: test %q is already defined at line %d", where, t.Name, prev.Line))
		}
		names[t.Name] = t.Pos
		t.tools = decodeStubs(d, t.Tools, where+".tools")
		t.steps = decodeStubs(d, t.Steps, where+".steps")
		t.modelPos = t.Pos
		if len(t.Model) > 0 && t.Model[0] != nil {
			t.modelPos = t.Model[0].Pos
		}
	}
	diags.Sort()
	return f, diags
}

// decodeStubs decodes a mapping of NAME: {result | error}.
func decodeStubs(d *agent.NodeDecoder, v *agent.Value, what string) map[string]*Stub {
	out := map[string]*Stub{}
	if v == nil || v.Pos.Line == 0 {
		return out
	}
	if v.Resolved().Kind() != agent.ValueMapping {
		d.Diags.Add(agent.SeverityError, v.Pos, what+": expected a mapping of names to {result} or {error}")
		return out
	}
	for _, e := range v.Resolved().Entries() {
		s := &Stub{}
		d.DecodeValue(e.Value, s, what+"."+e.Key)
		if s.Pos.Line == 0 {
			s.Pos = e.KeyPos
		}
		out[e.Key] = s
	}
	return out
}
