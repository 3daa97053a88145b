package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// PlatformDefinition is an agent in the IDE platform's JSON shape, ready to
// paste into the platform's console (docs/protocol.md §7). Gateway
// extensions (reply, actions, parameters, ...) are not part of it.
type PlatformDefinition struct {
	Name               string            `json:"name"`
	Version            string            `json:"version"`
	Type               string            `json:"type"`
	Description        string            `json:"description"`
	PublisherType      string            `json:"publisherType"`
	Publisher          string            `json:"publisher"`
	Service            Service           `json:"service"`
	ModelConfiguration *platformModel    `json:"modelConfiguration,omitempty"`
	Commands           []platformCommand `json:"commands"`
}

type platformModel struct {
	ModelName string `json:"modelName"`
}

type platformCommand struct {
	Name                              string            `json:"name"`
	Description                       string            `json:"description"`
	ModelConfiguration                *platformModel    `json:"modelConfiguration,omitempty"`
	MessageTemplates                  []platformMessage `json:"messageTemplates,omitempty"`
	ContextVariableCollectionStrategy *platformStrategy `json:"contextVariableCollectionStrategy,omitempty"`
}

type platformMessage struct {
	Role     string `json:"role"`
	Template string `json:"template"`
}

type platformStrategy struct {
	Type             string           `json:"type"`
	ContextVariables []map[string]any `json:"contextVariables"`
}

// Platform returns the definition in the platform's shape with
// service.endpoint set to endpoint, this gateway's public URL.
func (d *Definition) Platform(endpoint string) PlatformDefinition {
	p := PlatformDefinition{
		Name: d.Name, Version: d.Version, Type: d.Type, Description: d.Description,
		PublisherType: d.PublisherType, Publisher: d.Publisher,
		Service:            Service{Endpoint: endpoint},
		ModelConfiguration: exportModel(d.ModelConfiguration),
		Commands:           []platformCommand{},
	}
	if p.Type == "" {
		p.Type = "proxy"
	}
	for _, c := range d.Commands {
		pc := platformCommand{Name: c.Name, Description: c.Description, ModelConfiguration: exportModel(c.ModelConfiguration)}
		for _, mt := range c.MessageTemplates {
			pc.MessageTemplates = append(pc.MessageTemplates, platformMessage{Role: mt.Role, Template: mt.Template.Src})
		}
		if s := c.ContextVariableCollectionStrategy; s != nil {
			ps := &platformStrategy{Type: s.Type, ContextVariables: []map[string]any{}}
			if ps.Type == "" {
				ps.Type = "specify"
			}
			for _, v := range s.ContextVariables {
				ps.ContextVariables = append(ps.ContextVariables, exportVariable(v))
			}
			pc.ContextVariableCollectionStrategy = ps
		}
		p.Commands = append(p.Commands, pc)
	}
	return p
}

// KeepCommands drops the commands of p whose name keep does not admit
// (what a stored key's scope does not admit: server's GET /agents/{name}).
func (p *PlatformDefinition) KeepCommands(keep func(command string) bool) {
	p.Commands = slices.DeleteFunc(p.Commands, func(c platformCommand) bool { return !keep(c.Name) })
}

func exportModel(m *ModelConfig) *platformModel {
	if m == nil || m.ModelName == "" {
		return nil
	}
	return &platformModel{ModelName: m.ModelName}
}

func exportVariable(v *ContextVariableSpec) map[string]any {
	m := map[string]any{"name": v.Name}
	key := v.ResolverOptionsKey
	if key == "" {
		key = "resolverOptions"
	}
	opts := v.ResolverOptions
	if opts == nil {
		opts = map[string]any{}
	}
	if len(opts) > 0 || v.ResolverOptionsKey != "" {
		m[key] = opts
	}
	return m
}

// ExportJSON renders the platform definition as indented JSON.
func (d *Definition) ExportJSON(endpoint string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d.Platform(endpoint)); err != nil {
		return nil, fmt.Errorf("exporting agent %s: %w", d.Name, err)
	}
	return b.Bytes(), nil
}

// Summary is an agent as listed by GET /agents.
type Summary struct {
	Name        string           `json:"name"`
	Version     string           `json:"version,omitempty"`
	Description string           `json:"description"`
	Commands    []CommandSummary `json:"commands"`
	// Handoffs are the hand-off types the agent accepts and the command
	// each runs; absent when none.
	Handoffs []HandoffSummary `json:"handoffs,omitempty"`
	// Remote is where a remote agent runs; absent for agents of this
	// gateway.
	Remote string `json:"remote,omitempty"`
}

// HandoffSummary is a hand-off type an agent accepts, as GET /agents
// lists it.
type HandoffSummary struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

// CommandSummary is a command as listed by GET /agents.
type CommandSummary struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Summary describes the agent and its commands.
func (d *Definition) Summary() Summary {
	s := Summary{Name: d.Name, Version: d.Version, Description: d.Description, Commands: []CommandSummary{}}
	for _, c := range d.Commands {
		s.Commands = append(s.Commands, CommandSummary{Name: c.Name, Description: c.Description})
	}
	return s
}
