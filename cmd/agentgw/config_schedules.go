package main

import (
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/schedule"
)

// schedulePos is where a config file wrote one of its schedules: the
// list item, and the value of each key.
type schedulePos struct {
	item   agent.Position
	values map[string]*yaml.Node
	file   string
}

// schedulePositions reads where data, the config file file, writes each
// entry of its schedules list (nil when it has none, or does not parse:
// decoding reports that).
func schedulePositions(file string, data []byte) []schedulePos {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "schedules" || root.Content[i+1].Kind != yaml.SequenceNode {
			continue
		}
		var out []schedulePos
		for _, item := range root.Content[i+1].Content {
			p := schedulePos{item: agent.Position{File: file, Line: item.Line, Column: item.Column}, values: map[string]*yaml.Node{}, file: file}
			if item.Kind == yaml.MappingNode {
				for k := 0; k+1 < len(item.Content); k += 2 {
					p.values[item.Content[k].Value] = item.Content[k+1]
				}
			}
			out = append(out, p)
		}
		return out
	}
	return nil
}

// at is the position of err, a problem of this schedule: the value of the
// field it names (a cron's wrong field itself when the value is on one
// line), else the list item.
func (p schedulePos) at(field string, err error) agent.Position {
	var ve *schedule.ValidationError
	if errors.As(err, &ve) {
		field = ve.Field
	}
	n, ok := p.values[field]
	if !ok || field == "" {
		return p.item
	}
	pos := agent.Position{File: p.file, Line: n.Line, Column: n.Column}
	if ve != nil && ve.Offset > 0 && ve.Value == n.Value {
		switch n.Style {
		case 0: // plain
			pos.Column += ve.Offset
		case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
			pos.Column += 1 + ve.Offset
		}
	}
	return pos
}

// scheduleError is err, a problem of schedule i of cfg about field ("" for
// none named), prefixed with its file:line:col when the schedule came from
// a config file.
func (c *Config) scheduleError(i int, field string, err error) error {
	name := ""
	if d := c.Schedules[i]; d != nil {
		name = d.Name
	}
	if i < len(c.schedulePos) {
		return fmt.Errorf("%s: schedules[%d] %q: %w", c.schedulePos[i].at(field, err), i, name, err)
	}
	return fmt.Errorf("schedules[%d] %q: %w", i, name, err)
}
