package server

import (
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/internal/suggest"
	"github.com/agentgw/agentgw/observe"
)

// AgentList is the body of GET /agents.
type AgentList struct {
	Agents []agent.Summary `json:"agents"`
	// Problems are those found loading the definitions (at the start or
	// the last reload), absent when there were none.
	Problems []LoadProblem `json:"problems,omitempty"`
}

// LoadProblem is a problem found loading the agent definitions, with its
// position: an error, which kept a file's agents from loading (an agent
// served before keeps its last good version, with a warning saying so),
// or a warning.
type LoadProblem struct {
	File     string `json:"file"`
	Line     int    `json:"line,omitempty"`
	Column   int    `json:"column,omitempty"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

// listAgents serves GET /agents: every agent with its commands (to a
// stored key, the agents and commands its scope admits), and the problems
// found loading them.
func (s *Server) listAgents(c echo.Context) error {
	reg := s.cfg.Runner.Registry()
	list := AgentList{Agents: []agent.Summary{}}
	who, scoped := s.scopeOf(c)
	for _, a := range reg.List() {
		if scoped && !who.MayCall(a.Name(), "") {
			continue
		}
		sum := a.Summary()
		if scoped {
			sum.Commands = slices.DeleteFunc(sum.Commands, func(c agent.CommandSummary) bool { return !who.MayCall(a.Name(), c.Name) })
			sum.Handoffs = slices.DeleteFunc(sum.Handoffs, func(h agent.HandoffSummary) bool { return !who.MayCall(a.Name(), h.Command) })
			if len(sum.Handoffs) == 0 {
				sum.Handoffs = nil
			}
		}
		list.Agents = append(list.Agents, sum)
	}
	for _, d := range reg.Problems() {
		list.Problems = append(list.Problems, LoadProblem{File: d.Pos.File, Line: d.Pos.Line, Column: d.Pos.Column,
			Severity: d.Severity.String(), Message: d.Message})
	}
	return c.JSON(http.StatusOK, list)
}

// getAgent serves GET /agents/{name}: the definition in the platform's JSON
// shape with service.endpoint set to this gateway; to a stored key, with
// the commands its scope admits only (another command's templates and
// variables are not the key holder's to read).
func (s *Server) getAgent(c echo.Context) error {
	name, err := agentParam(c)
	if err != nil {
		return err
	}
	reg := s.cfg.Runner.Registry()
	a, ok := reg.Get(name)
	who, scoped := s.scopeOf(c)
	if ok && scoped && !who.MayCall(name, "") {
		return notInScope(name, "")
	}
	if !ok {
		return apierr.Errorf(apierr.CodeAgentNotFound, "no agent named %q%s", name, suggest.DidYouMean(name, reg.Names())).
			Suggest("GET /agents lists the agents")
	}
	observe.From(c.Request().Context()).Routed(name, "", true)
	def := a.Platform(s.publicURL(c))
	if scoped {
		def.KeepCommands(func(command string) bool { return who.MayCall(name, command) })
	}
	return c.JSON(http.StatusOK, def)
}

// publicURL is the configured public URL, or the one the client used.
func (s *Server) publicURL(c echo.Context) string {
	if s.cfg.PublicURL != "" {
		return s.cfg.PublicURL
	}
	return c.Scheme() + "://" + c.Request().Host
}

// Health is the body of GET /healthz.
type Health struct {
	Status  string `json:"status"`
	Agents  int    `json:"agents"`
	Version string `json:"version,omitempty"`
}

// health serves GET /healthz.
func (s *Server) health(c echo.Context) error {
	return c.JSON(http.StatusOK, Health{Status: "ok", Agents: len(s.cfg.Runner.Registry().Names()), Version: s.cfg.Version})
}
