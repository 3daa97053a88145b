// Package requestdef says what a request-carried agent definition (the
// request's agentDefinition, taken only with allowRequestDefinitions) may
// hold: templates, a context strategy, a model name and descriptive fields.
// It may never name a network target or anything that runs a process: no
// service endpoint (other than this gateway's own), no tools (http, MCP,
// native, scripts), no plan steps, no hand-offs, no schedules (webhooks).
//
// The rule is an allow-list over the definition as written: a key that is
// not listed is refused, so a field added to agent.Definition later is
// refused here until it is listed. Check runs before the definition is
// decoded, so a refused definition never compiles, let alone runs.
package requestdef

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/suggest"
)

// Root names the definition in the field paths of refusals.
const Root = "agentDefinition"

// Check refuses raw, a request's agentDefinition, when it holds a key a
// request-carried definition may not hold: a DEFINITION_NOT_ALLOWED error
// (422) naming the first such field by its path (agentDefinition.tools,
// agentDefinition.commands[0].steps, agentDefinition.service.endpoint).
// self is this gateway's own address as the request reached it (its public
// URL, or the scheme and host the client used): a service.endpoint naming
// it is allowed, for the platform's copy of a definition names the gateway
// that serves it; the endpoint is dropped all the same (Sanitize) and
// never reached. A document that does not parse is left to the decoder.
func Check(raw []byte, self string) *apierr.Error {
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil
	}
	c := checker{self: self}
	return c.mapping(&doc, Root, definitionKeys)
}

// rule checks the value n of the field at path.
type rule func(c *checker, n *yaml.Node, path string) *apierr.Error

// keys are the keys a mapping may hold, each with its rule, and those it
// may not, each with why (a refusal that says more than "unknown").
type keys map[string]field

// field is a key's rule, or why the key is refused.
type field struct {
	check rule
	why   string
}

// checker walks a definition; self is the gateway's own address.
type checker struct {
	self string
}

// definitionKeys are the keys of agent.Definition a request-carried
// definition may hold. Tools, handoffs and schedules are refused by name,
// with why; anything else not listed is refused as unknown.
var definitionKeys = keys{
	"name":               {check: free},
	"version":            {check: free},
	"type":               {check: free},
	"description":        {check: free},
	"publisherType":      {check: free},
	"publisher":          {check: free},
	"service":            {check: service},
	"modelConfiguration": {check: mappingOf(modelKeys)},
	"commands":           {check: listOf(mappingOf(commandKeys))},
	"tools":              {why: "tools reach the network or run processes"},
	"handoffs":           {why: "hand-off types are the operator's"},
	"schedules":          {why: "schedules run unattended and post to webhooks"},
}

// modelKeys are those of agent.ModelConfig. Only modelName is used; the
// rest are dropped, as before (they name no target).
var modelKeys = keys{
	"modelName":      {check: free},
	"parameters":     {check: free},
	"contextLength":  {check: free},
	"fallbackModels": {check: free},
}

// commandKeys are those of agent.Command. reply, actions and timeout are
// dropped when the definition compiles; steps and tools are refused.
var commandKeys = keys{
	"name":                              {check: free},
	"description":                       {check: free},
	"modelConfiguration":                {check: mappingOf(modelKeys)},
	"messageTemplates":                  {check: listOf(mappingOf(templateKeys))},
	"contextVariableCollectionStrategy": {check: mappingOf(strategyKeys)},
	"reply":                             {check: free},
	"actions":                           {check: listOf(action)},
	"timeout":                           {check: free},
	"steps":                             {why: "plan steps run tools, git, hand-offs and other agents"},
	"tools":                             {why: "tools reach the network or run processes"},
}

var templateKeys = keys{"role": {check: free}, "template": {check: free}, "content": {check: free}}

var strategyKeys = keys{"type": {check: free}, "contextVariables": {check: listOf(mappingOf(variableKeys))}}

var variableKeys = keys{"name": {check: free}, "resolverOptions": {check: free}, "resolveOptions": {check: free}, "required": {check: free}}

// handlerKeys are the keys of an action that hold a handler.
var handlerKeys = []string{"onAccept", "onDismiss", "onExpand", "onClick"}

// free allows any value: a scalar the decoder checks, or a value of free
// shape (model parameters, resolver options) that names no target.
func free(*checker, *yaml.Node, string) *apierr.Error { return nil }

// mappingOf checks a mapping's keys against ks.
func mappingOf(ks keys) rule {
	return func(c *checker, n *yaml.Node, path string) *apierr.Error {
		return c.mapping(n, path, ks)
	}
}

// listOf checks each item of a list with item.
func listOf(item rule) rule {
	return func(c *checker, n *yaml.Node, path string) *apierr.Error {
		n = resolve(n)
		if n == nil || n.Kind != yaml.SequenceNode {
			return nil // not a list: the decoder says so
		}
		for i, e := range n.Content {
			if err := item(c, e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	}
}

// mapping checks the keys of n, a mapping, against ks; a key not in ks is
// refused. What is not a mapping is left to the decoder.
func (c *checker) mapping(n *yaml.Node, path string, ks keys) *apierr.Error {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		at := path + "." + key.Value
		f, ok := ks[key.Value]
		if !ok {
			return notAllowed(at, "only "+listed(ks)+" are allowed here"+suggest.DidYouMean(key.Value, names(ks)))
		}
		if f.why != "" {
			if isEmpty(val) {
				continue // null, [] or {}: names nothing
			}
			return notAllowed(at, f.why)
		}
		if err := f.check(c, val, at); err != nil {
			return err
		}
	}
	return nil
}

// service allows a service with no endpoint, or with this gateway's own
// (the platform's copy of a definition names the gateway serving it). A
// tokenEnv would name the gateway's environment: refused.
func service(c *checker, n *yaml.Node, path string) *apierr.Error {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], resolve(n.Content[i+1])
		at := path + "." + key.Value
		switch key.Value {
		case "endpoint":
			if isEmpty(val) || val.Kind == yaml.ScalarNode && (val.Value == "" || SameGateway(val.Value, c.self)) {
				continue
			}
			return notAllowed(at, "a request-carried definition runs on this gateway and may name no other service")
		case "tokenEnv":
			return notAllowed(at, "it names the gateway's environment")
		default:
			return notAllowed(at, "only endpoint (this gateway's own) is allowed here")
		}
	}
	return nil
}

// action checks one action of a command: its handlers may name a command
// of the same definition, never inline steps. Its other keys are the
// action's wire shape, all templates.
func action(c *checker, n *yaml.Node, path string) *apierr.Error {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], resolve(n.Content[i+1])
		if !slices.Contains(handlerKeys, key.Value) || val == nil {
			continue
		}
		at := path + "." + key.Value
		switch val.Kind {
		case yaml.SequenceNode:
			return notAllowed(at, "a handler of a request-carried definition may name a command, not run steps")
		case yaml.MappingNode:
			if err := c.mapping(val, at, keys{"command": {check: free}}); err != nil {
				return err
			}
		}
	}
	return nil
}

// notAllowed is the refusal of the field at path.
func notAllowed(path, why string) *apierr.Error {
	return apierr.Errorf(apierr.CodeDefinitionNotAllowed, "%s: not allowed in a request-carried definition: %s", path, why)
}

// SameGateway reports whether endpoint names the gateway at self: the same
// scheme, host and port (default ports filled in), no user info, and a
// path at or below self's. An empty self names nothing.
func SameGateway(endpoint, self string) bool {
	if self == "" {
		return false
	}
	e, err1 := url.Parse(endpoint)
	s, err2 := url.Parse(self)
	if err1 != nil || err2 != nil || e.User != nil || e.Opaque != "" || s.Host == "" {
		return false
	}
	if !strings.EqualFold(e.Scheme, s.Scheme) || !strings.EqualFold(hostPort(e), hostPort(s)) {
		return false
	}
	base := strings.TrimSuffix(s.Path, "/")
	p := e.Path
	return p == base || p == base+"/" || strings.HasPrefix(p, base+"/") || (base == "" && p == "")
}

// hostPort is u's host and port, the scheme's default port when absent.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// resolve follows aliases and enters documents; nil is an empty document.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && (n.Kind == yaml.AliasNode || n.Kind == yaml.DocumentNode) {
		if n.Kind == yaml.AliasNode {
			n = n.Alias
		} else if len(n.Content) > 0 {
			n = n.Content[0]
		} else {
			return nil
		}
	}
	return n
}

// isEmpty reports whether n is null, an empty list or an empty mapping.
func isEmpty(n *yaml.Node) bool {
	n = resolve(n)
	return n == nil || isNull(n) || ((n.Kind == yaml.SequenceNode || n.Kind == yaml.MappingNode) && len(n.Content) == 0)
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// names are the allowed keys of ks, sorted.
func names(ks keys) []string {
	out := make([]string, 0, len(ks))
	for k, f := range ks {
		if f.why == "" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// listed renders the allowed keys of ks for a message.
func listed(ks keys) string {
	return strings.Join(names(ks), ", ")
}
