package agent

import (
	"fmt"
	"time"

	"github.com/agentgw/agentgw/agent/toolspec"
)

// Position is a place in a definition file; lines and columns count from 1.
type Position struct {
	File   string
	Line   int
	Column int
}

// String renders file:line:col, or just the file when the line is unknown.
func (p Position) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
}

// Text is a template string together with where it was written.
type Text struct {
	Src string
	Pos Position
	// Block is true for YAML literal or folded scalars, whose content starts
	// on the line after Pos.
	Block bool `yaml:"-"`
}

// Definition is an agent as written by an admin: a superset of the IDE
// platform's JSON agent definition (docs/protocol.md §7).
type Definition struct {
	Pos                Position     `yaml:"-"`
	Name               string       `yaml:"name"`
	Version            string       `yaml:"version"`
	Type               string       `yaml:"type"`
	Description        string       `yaml:"description"`
	PublisherType      string       `yaml:"publisherType"`
	Publisher          string       `yaml:"publisher"`
	Service            *Service     `yaml:"service"`
	ModelConfiguration *ModelConfig `yaml:"modelConfiguration"`
	Commands           []*Command   `yaml:"commands"`
	// Tools (extension) are the agent's tools, usable by its commands.
	Tools []*ToolDef `yaml:"tools"`
	// Handoffs (extension) are the hand-off messages (seed 001) the agent
	// accepts, by type: the command each runs, and a schema its data must
	// also satisfy.
	Handoffs []*HandoffDef `yaml:"handoffs"`
	// Schedules (extension) run the agent's commands on a schedule.
	Schedules []*ScheduleDef `yaml:"schedules"`
	// ContentExclusion (extension) are path patterns whose files' content
	// never reaches the model, besides the gateway's contentGuard.exclude
	// (package guard/exclude).
	ContentExclusion []string `yaml:"contentExclusion" doc:"path patterns (.env, secrets/**, *.pem) whose files' content never reaches the model: withheld from activeEditor, packageFiles, knowledge-base references and tool results, with a note to the model"`
}

// ScheduleDef is a schedule as written in an agent file, the gateway
// config or a POST /schedules body (JSON, the same keys): when (once, every or cron), what (an agent command with its
// context, or a tool with parameters) and where its result goes.
type ScheduleDef struct {
	Pos      Position `yaml:"-" json:"-"`
	Name     string   `yaml:"name" json:"name,omitempty" doc:"unique among all schedules"`
	Once     string   `yaml:"once" json:"once,omitempty" doc:"runs once at this RFC 3339 time"`
	Every    string   `yaml:"every" json:"every,omitempty" doc:"runs every Go duration (90s, 1h), at least 1s"`
	Cron     string   `yaml:"cron" json:"cron,omitempty" doc:"runs at a cron expression's times: five fields, or @daily, @hourly, @weekly, @monthly, @yearly"`
	Timezone string   `yaml:"timezone" json:"timezone,omitempty" doc:"the IANA time zone cron is evaluated in; UTC when absent"`
	Enabled  *bool    `yaml:"enabled" json:"enabled,omitempty" doc:"a disabled schedule never runs on its own" default:"true"`
	Agent    string   `yaml:"agent" json:"agent,omitempty" doc:"the agent whose command runs; in an agent file, that agent when absent"`
	Command  string   `yaml:"command" json:"command,omitempty" doc:"the command that runs; default when absent"`
	Prompt   string   `yaml:"prompt" json:"prompt,omitempty" doc:"the user input of the run (userInputPrompt)"`
	User     string   `yaml:"user" json:"user,omitempty" doc:"the user the run is for: userInfo.id, and the owner of its conversation (a schedule made over the API with inbound auth acts as its creator's token instead)"`
	// Context are further context variables, by name.
	Context map[string]any `yaml:"context" json:"context,omitempty" doc:"further context variables of the run, by name (vcs, activeEditor, …)"`
	Tool    string         `yaml:"tool" json:"tool,omitempty" doc:"a tool of the agent (or a shared one) to call instead of a command"`
	Params  map[string]any `yaml:"params" json:"params,omitempty" doc:"the tool's parameters"`
	// Where the result goes, besides the run's record.
	ContextID string `yaml:"contextId" json:"contextId,omitempty" doc:"a conversation the run continues: its answer is kept there"`
	HandoffTo string `yaml:"handoffTo" json:"handoffTo,omitempty" doc:"an agent the result is handed to, as a NOTIFICATION hand-off"`
	Webhook   string `yaml:"webhook" json:"webhook,omitempty" doc:"a URL the result is POSTed to, on scheduler.webhookAllow"`
	Timeout   string `yaml:"timeout" json:"timeout,omitempty" doc:"bounds a run, a Go duration; 10m when absent"`
	Missed    string `yaml:"missed" json:"missed,omitempty" doc:"runs missed during downtime: runOnce (one run for them all, the default) or skip"`
}

// HandoffDef is one type of hand-off message an agent accepts.
type HandoffDef struct {
	Pos     Position `yaml:"-"`
	Type    string   `yaml:"type" doc:"the handoff_type: TASK_TRANSFER, REQUEST_INFORMATION, PROVIDE_INFORMATION, ESCALATION, NOTIFICATION, STATUS_UPDATE or APPROVAL_REQUEST"`
	Command string   `yaml:"command" doc:"the command that runs for it, with the message as .handoff; default when absent"`
	Schema  *Value   `yaml:"schema" doc:"a JSON Schema the message's payload.data must satisfy too, beside the type's own"`
}

// ToolDef is a tool as written in a definition (see toolspec.Spec).
type ToolDef struct {
	Pos           Position `yaml:"-"`
	toolspec.Spec `yaml:",inline"`
}

// Service is where the platform reaches the agent.
type Service struct {
	Endpoint string `yaml:"endpoint" json:"endpoint"`
	// TokenEnv (extension) names the environment variable holding the
	// token a remote agent's gateway wants (sent as X-Agentgw-Token).
	TokenEnv string `yaml:"tokenEnv" json:"-"`
}

// ModelConfig selects the upstream model.
type ModelConfig struct {
	ModelName string `yaml:"modelName"`
	// Parameters (extension) are upstream request fields such as temperature
	// or max_tokens, used unless the plugin's request sets them.
	Parameters map[string]any `yaml:"parameters"`
	// ContextLength (extension) overrides the gateway's context budget for
	// this agent or command, in tokens.
	ContextLength int `yaml:"contextLength"`
	// FallbackModels (extension) are tried in order when the model keeps
	// failing before its answer begins (429, 5xx, unreachable), instead of
	// the gateway's upstream.fallbackModels; an empty list disables those.
	// The nearest level that sets it wins: llm step, command, agent.
	FallbackModels []string `yaml:"fallbackModels"`
}

// Command is one command of an agent.
type Command struct {
	Pos                               Position           `yaml:"-"`
	Name                              string             `yaml:"name"`
	Description                       string             `yaml:"description"`
	ModelConfiguration                *ModelConfig       `yaml:"modelConfiguration"`
	MessageTemplates                  []*MessageTemplate `yaml:"messageTemplates"`
	ContextVariableCollectionStrategy *Strategy          `yaml:"contextVariableCollectionStrategy"`
	// Reply (extension) is a template streamed as text without a model.
	Reply *Text `yaml:"reply"`
	// Actions (extension) are confirm and tree actions in their wire shape
	// without state, emitted after the text; every string is a template.
	// Beside action and data, an action may declare handlers for the
	// feedback it sends: onAccept and onDismiss for a confirm, onExpand and
	// onClick for a tree.
	Actions []*Value `yaml:"actions"`
	// Steps (extension) make the command a plan (see Step).
	Steps []*Step `yaml:"steps"`
	// Tools (extension) are the tools the command's model may call, by name:
	// the agent's, or the gateway's shared ones.
	Tools []string `yaml:"tools"`
	// Timeout (extension) bounds the whole plan.
	Timeout time.Duration `yaml:"timeout"`
}

// Step is one step of a plan: an id, its dependencies and condition, one
// kind (reply, llm, action, set, call, or a kind registered beside them
// such as git and tool) with its configuration, its inputs and where its
// result goes.
type Step struct {
	Pos       Position `yaml:"-"`
	ID        string   `yaml:"id"`
	DependsOn []string `yaml:"dependsOn" alias:"dependencies"`
	When      string   `yaml:"when" alias:"condition"`
	// Kinds are the step's kind keys with their configuration, in the
	// order the kinds were registered; a valid step has exactly one.
	Kinds []StepKind `yaml:",kinds"`
	// With are the step's inputs: references ($state.x || $state.y),
	// templates or literal values, seen by templates as .with.
	With    *Value        `yaml:"with"`
	Output  string        `yaml:"output"`
	Timeout time.Duration `yaml:"timeout"`
	Retry   *RetrySpec    `yaml:"retry"`
	OnError string        `yaml:"onError"`
}

// LLMStep asks the model with its own templates.
type LLMStep struct {
	MessageTemplates   []*MessageTemplate `yaml:"messageTemplates" alias:"messages" doc:"the prompt: messages with a role and a template"`
	ModelConfiguration *ModelConfig       `yaml:"modelConfiguration" doc:"the model and its parameters; the command's when absent"`
	// Stream sends the answer's tokens to the user; otherwise the answer
	// is only captured as the step's result.
	Stream bool `yaml:"stream" doc:"send the answer's tokens to the user; otherwise only the step's result holds it" default:"false"`
	// Format "json" parses the answer as JSON.
	Format string `yaml:"format" doc:"text, or json to parse the answer as JSON" default:"text"`
	// Tools the model may call, by name.
	Tools []string `yaml:"tools" doc:"tools the model may call, by name"`
}

// CallStep runs another command of this or another agent.
type CallStep struct {
	Agent   string `yaml:"agent" doc:"the agent whose command runs; this one when absent"`
	Command string `yaml:"command" doc:"the command to run" default:"default"`
	// Stream sends the called command's output to the user; otherwise its
	// text is captured as the step's result.
	Stream bool `yaml:"stream" doc:"send the called command's output to the user; otherwise its text is the step's result" default:"false"`
}

// RetrySpec retries a failed step.
type RetrySpec struct {
	Limit   int           `yaml:"limit"`
	Backoff time.Duration `yaml:"backoff"`
}

// Handler is what feedback on an action runs: a command of the same agent,
// or inline steps. In YAML it is a command name, a list of steps, or a
// mapping with command or steps.
type Handler struct {
	Pos     Position `yaml:"-"`
	Command string   `yaml:"command"`
	Steps   []*Step  `yaml:"steps"`
}

// MessageTemplate is one templated prompt message.
type MessageTemplate struct {
	Pos      Position `yaml:"-"`
	Role     string   `yaml:"role"`
	Template *Text    `yaml:"template" alias:"content"`
}

// Strategy is the platform's contextVariableCollectionStrategy.
type Strategy struct {
	Pos              Position               `yaml:"-"`
	Type             string                 `yaml:"type"`
	ContextVariables []*ContextVariableSpec `yaml:"contextVariables"`
}

// ContextVariableSpec declares a context variable a command needs.
type ContextVariableSpec struct {
	Pos             Position       `yaml:"-"`
	Name            string         `yaml:"name"`
	ResolverOptions map[string]any `yaml:"resolverOptions" alias:"resolveOptions"`
	// Required (extension) makes a request without the variable a 422.
	Required bool `yaml:"required"`
	// ResolverOptionsKey is the spelling the author used (resolverOptions or
	// the platform's resolveOptions), kept for export.
	ResolverOptionsKey string `yaml:"-"`
}
