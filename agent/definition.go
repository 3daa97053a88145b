package agent

import "fmt"

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
	// block is true for YAML literal or folded scalars, whose content starts
	// on the line after Pos.
	block bool
}

// Definition is an agent as written by an admin: a superset of the IDE
// platform's JSON agent definition (PROTOCOL.md section 7).
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
}

// Service is where the platform reaches the agent.
type Service struct {
	Endpoint string `yaml:"endpoint" json:"endpoint"`
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
	Actions []*Value `yaml:"actions"`
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
