package main

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"log/slog"
	"maps"
	"path/filepath"

	"github.com/agentgw/agentgw/agent"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/agent/stepkind"
	"github.com/agentgw/agentgw/collab"
	"github.com/agentgw/agentgw/collab/askstep"
	"github.com/agentgw/agentgw/configs"
	"github.com/agentgw/agentgw/conversation"
	"github.com/agentgw/agentgw/gitrepo"
	"github.com/agentgw/agentgw/gitrepo/gitstep"
	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/handoff/handoffstep"
	"github.com/agentgw/agentgw/handoff/hub"
	"github.com/agentgw/agentgw/handoff/queue"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/knowledge/kb"
	"github.com/agentgw/agentgw/knowledge/recallstep"
	"github.com/agentgw/agentgw/mcp"
	"github.com/agentgw/agentgw/tools"
	"github.com/agentgw/agentgw/tools/toolload"
)

// loader reads the agent definitions and shared tools the configuration
// names, or the embedded examples.
type loader struct {
	paths     []string
	toolFiles []string
	tools     *tools.Manager
	kinds     *stepkind.Registry
	// ask is the ask step kind, which checks the agents asks name once a
	// read has loaded them all.
	ask *askstep.Kind
}

// services are the gateway's parts that step kinds and built-in tools use;
// lint and export load agents without them (each nil).
type services struct {
	// repos back git steps and the git.* tools (nil: none configured).
	repos *gitrepo.Manager
	// pool runs the mcp tools.
	pool *mcp.Pool
	// handoffs send the handoff steps' and handoff_to_agent's messages.
	handoffs *hub.Hub
	// conversations give those messages their user interaction history.
	conversations conversation.Repo
	// log is where the services say what they could not do (nil: nowhere).
	log *slog.Logger
	// knowledge backs recall steps and search_knowledge.
	knowledge *kb.Manager
	// content withholds excluded files from the request's context.
	content contentGuard
}

// searcher is the knowledge bases as recall steps search them; nil (lint,
// export, no knowledge bases) searches none.
func (s services) searcher() recallstep.Searcher {
	if s.knowledge == nil {
		return nil
	}
	return s.knowledge
}

// newLoader builds the tool manager and the step kinds from the
// configuration and the services. The ask steps and the ask_agent tool
// get an Asker without a runner: it is built after them, and an ask goes
// through the runner of the run asking (agent/dispatch); remote agents
// are the runner's to forward to, so the Asker resolves none itself.
func newLoader(cfg *Config, getenv func(string) string, svc services, log *slog.Logger) *loader {
	asker := collab.New(collab.Config{Logger: log})
	builtins := gitstep.Builtins(svc.repos)
	maps.Copy(builtins, handoffstep.Builtins(svc.sender()))
	maps.Copy(builtins, collab.Builtins(asker))
	maps.Copy(builtins, recallstep.Builtins(svc.searcher(), kb.Reference))
	tm := tools.NewManager(tools.Config{
		WorkRoots: cfg.Tools.WorkRoots, HTTPAllow: cfg.Tools.HTTPAllow, Python: cfg.Tools.Python, Node: cfg.Tools.Node,
		Getenv: getenv, Builtins: builtins, Logger: log,
	})
	registerRuntimes(tm, svc.pool)
	ask := askstep.New(asker)
	return &loader{paths: cfg.Agents, toolFiles: cfg.Tools.Files, tools: tm, kinds: stepKinds(svc, ask), ask: ask}
}

// sender is the hub as the handoff step and tool send through it; nil
// (lint, export) sends nothing.
func (s services) sender() handoffstep.Sender {
	if s.handoffs == nil {
		return nil
	}
	log := s.log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return hubSender{h: s.handoffs, convs: s.conversations, log: log}
}

// hubSender sends the handoff steps' and tool's messages through the hub,
// with the conversation's turns (convs, nil: none), and reads their
// answers for those that wait.
type hubSender struct {
	h     *hub.Hub
	convs conversation.Repo
	log   *slog.Logger
}

// Interactions implements handoffstep.History.
func (s hubSender) Interactions(ctx context.Context, contextID, owner string) []handoff.UserInteraction {
	if s.convs == nil {
		return nil
	}
	out, err := handoffstep.Interactions(ctx, s.convs, contextID, owner)
	if err != nil {
		s.log.Warn("hand-off sent without its user interaction history", "context", contextID, "err", err)
	}
	return out
}

// Answer implements handoffstep.Awaiter: the gateway reads the message its
// own agent just sent.
func (s hubSender) Answer(ctx context.Context, messageID string) (*handoffstep.Answer, error) {
	st, err := s.h.Get(ctx, access.Caller{Owner: access.Operator, Admin: true}, messageID)
	if err != nil {
		return nil, err
	}
	ans := &handoffstep.Answer{Status: string(st.Status), Error: st.Error}
	switch st.Status {
	case queue.StatusQueued, queue.StatusRunning:
	default:
		ans.Final = true
	}
	var res hub.Result
	if len(st.Result) > 0 && json.Unmarshal(st.Result, &res) == nil {
		ans.Agent, ans.Text = res.Agent, res.Text
	}
	return ans, nil
}

func (s hubSender) Send(ctx context.Context, msg *handoff.Message, origin handoffstep.Origin) (*handoffstep.Sent, error) {
	st, _, err := s.h.Send(ctx, msg, hub.Origin{ContextID: origin.ContextID, Owner: origin.Owner})
	if err != nil {
		return nil, err
	}
	return &handoffstep.Sent{MessageID: st.MessageID, TaskID: st.TaskID, Status: string(st.Status), Recipients: st.Recipients}, nil
}

// agentSet is what one read made: the agents and the shared tools (every
// agent's tools include them, but a set may have no agent), and the
// problems found making them.
type agentSet struct {
	agents   []*program.Agent
	shared   map[string]*tools.Tool
	problems agent.Diagnostics
}

// read loads the shared tools, then the agents with them.
func (l *loader) read() agentSet {
	shared, diags := toolload.LoadTools(l.tools, l.toolFiles...)
	opts := program.LoadOptions{Tools: toolload.Compiler{Manager: l.tools}, Shared: toolload.Shared(shared), Kinds: l.kinds, Parts: definitionParts()}
	var agents []*program.Agent
	var ds agent.Diagnostics
	if len(l.paths) == 0 {
		agents, ds = program.LoadFSWith(opts, configs.FS, configs.AgentsDir)
	} else {
		agents, ds = program.LoadWith(opts, l.paths...)
	}
	names := make([]string, 0, len(agents))
	for _, a := range agents {
		names = append(names, a.Name())
	}
	_, sds := agentSchedules(agents)
	problems := append(append(append(diags, ds...), l.ask.CheckAgents(names, nil)...), sds...)
	problems.Sort()
	return agentSet{agents: agents, shared: shared, problems: problems}
}

// load reads the definitions; an agent whose file now has errors keeps
// the version of prev (the set served so far, zero at the start), and
// every problem is logged with its position.
func (l *loader) load(prev agentSet, log *slog.Logger) agentSet {
	set := l.read()
	set.keepLastGood(prev)
	for _, d := range set.problems {
		if d.Severity == agent.SeverityError {
			log.Error("agent definition", "problem", d.String())
		} else {
			log.Warn("agent definition", "problem", d.String())
		}
	}
	return set
}

// keepLastGood adds to s the agents of prev that s lacks because the file
// that defined them (or a directory holding it) could not be read or has
// errors now, each with a warning saying so; an agent whose file was
// removed or no longer defines it is dropped.
func (s *agentSet) keepLastGood(prev agentSet) {
	broken := map[string]bool{}
	for _, d := range s.problems {
		if d.Severity == agent.SeverityError && d.Pos.File != "" {
			broken[d.Pos.File] = true
		}
	}
	if len(broken) == 0 {
		return
	}
	have := map[string]bool{}
	for _, a := range s.agents {
		have[a.Name()] = true
	}
	var kept agent.Diagnostics
	for _, a := range prev.agents {
		if have[a.Name()] || !brokenAt(broken, a.Def.Pos.File) {
			continue
		}
		have[a.Name()] = true
		s.agents = append(s.agents, a)
		kept = append(kept, agent.Diagnostic{Pos: a.Def.Pos, Severity: agent.SeverityWarning,
			Message: fmt.Sprintf("agent %q is served as loaded before until the errors in its file are fixed", a.Name())})
	}
	s.problems = append(s.problems, kept...)
	s.problems.Sort()
}

// brokenAt reports whether file, or a directory holding it, is in broken.
func brokenAt(broken map[string]bool, file string) bool {
	for p := file; ; {
		if broken[p] {
			return true
		}
		dir := filepath.Dir(p)
		if dir == p {
			return false
		}
		p = dir
	}
}

// closeReplaced closes the tools of s that next does not use, each once
// though agents share some: each is released as soon as no call to it is
// in flight (tools.Tool.Close). The tools of an agent next kept from s stay
// open; they are closed with the set that replaces it.
func (s agentSet) closeReplaced(next agentSet, log *slog.Logger) {
	inUse := map[*tools.Tool]bool{}
	for t := range next.tools() {
		inUse[t] = true
	}
	for t := range s.tools() {
		if inUse[t] {
			continue
		}
		inUse[t] = true // closed once
		if err := t.Close(); err != nil {
			log.Warn("closing a replaced tool", "tool", t.Name, "error", err)
		}
	}
}

// tools yields every tool of the set: the shared ones and the agents'
// (which toolload compiled: *tools.Tool).
func (s agentSet) tools() iter.Seq[*tools.Tool] {
	return func(yield func(*tools.Tool) bool) {
		for _, t := range s.shared {
			if !yield(t) {
				return
			}
		}
		for _, a := range s.agents {
			for _, t := range a.Tools() {
				if t, ok := t.(*tools.Tool); ok && !yield(t) {
					return
				}
			}
		}
	}
}
