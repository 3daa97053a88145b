package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/handoff/accept"
	"github.com/agentgw/agentgw/handoff/queue"
	"github.com/agentgw/agentgw/internal/access"
)

// A message sent by a caller with a stored key's scope (access.Scope)
// goes only where the key could call by request: each recipient's command
// for the message's type, its escalate_to's command for an ESCALATION and
// its fallback_action's command must be in the scope (a remote recipient,
// whose command is the remote's, needs the whole agent). The scope is
// kept in the message's queued payload and travels with it: a message a
// run sends while it handles the message (a handoff step, one hop
// further) is held to the same scope, and so is the escalation the hub
// sends for it. A run of a request with a scoped key (access.FromContext)
// hands off within the key's scope too. Nothing refused is queued. The run
// that handles a message with a scope has it in its context (withScope):
// what it asks or calls (collab, the runner's call step) is held to it.
//
// The key's id travels the same way (payload.KeyID): from the request's
// stored key (Submit's caller, access.FromContext for a run of a request
// or of a schedule made with the key), from the message whose run sends
// on, to its escalation. Each delivery of such a message, first run or
// retry, in whichever replica claims it, and its fallback, first reads the
// key by its id (checkKey: Config.Keys, one read of the keys' primary
// key): a revoked key's message runs nothing and is DEAD, FORBIDDEN, not
// retried (a queue.Refusal); a rotated key keeps its id, and its messages
// are delivered. A key that cannot be read leaves the message QUEUED to
// be tried again (queue.Unavailable). A message sent without a stored key
// (a static token, the operator's schedules and agents' files) is not
// checked, nor is one queued by a gateway before keys were checked.

// errKeyRevoked is the refusal of a message whose key is revoked.
var errKeyRevoked = &queue.Refusal{Code: apierr.CodeForbidden, Message: "the key that sent this hand-off was revoked"}

// KeyCheck reports whether the stored key of id is live (not revoked; a
// rotated key is): keys.Store.LookupID. An error is the store's.
type KeyCheck func(ctx context.Context, id string) (live bool, err error)

// checkKey refuses the delivery of the queued message env (its payload p)
// sent with a stored key that is no longer live: errKeyRevoked, a
// *queue.Refusal (the message is DEAD at once, nothing ran). A key that
// cannot be read is queue.Unavailable (the message is tried again, not
// dropped); a gateway that reads no keys (Config.Keys nil) fails the run.
// A message without a key is not checked.
func (h *Hub) checkKey(ctx context.Context, env queue.Envelope, p payload) error {
	if p.KeyID == "" {
		return nil
	}
	if h.keys == nil {
		return fmt.Errorf("hand-off %s was sent with the stored key %s, and this gateway reads no keys (server.keys is off): nothing ran", env.ID, p.KeyID)
	}
	live, err := h.keys(ctx, p.KeyID)
	if err != nil {
		return queue.Unavailable(fmt.Errorf("checking the key %s that sent hand-off %s: %w", p.KeyID, env.ID, err))
	}
	if !live {
		h.log.Warn("hand-off refused: the key that sent it was revoked", "message", env.ID, "key", p.KeyID, "owner", env.Owner)
		return errKeyRevoked
	}
	return nil
}

// withScope is ctx of the run that handles the queued message env (its
// payload p): with the message's scope and key (access.NewContext) when it
// has them, so that what the run asks (an ask step, the ask_agent tool)
// and calls (a call step) is held to the scope as its hand-offs are
// (sendScope reads the parent message's). A message without either leaves
// ctx as it is.
func withScope(ctx context.Context, env queue.Envelope, p payload) context.Context {
	if p.Scope == nil && p.KeyID == "" {
		return ctx
	}
	return access.NewContext(ctx, access.Caller{Owner: env.Owner, Scope: p.Scope, KeyID: p.KeyID})
}

// sendScope is the scope a message sent from ctx is held to, and the id
// of the stored key it is sent with: those of the message being delivered
// (parent), else those of the request's stored key (or of the schedule's,
// whose run has them in ctx); nil and "" for none.
func sendScope(ctx context.Context, parent *queue.Envelope) (*access.Scope, string, error) {
	if parent != nil {
		var p payload
		if err := json.Unmarshal(parent.Payload, &p); err != nil {
			return nil, "", apierr.Internal(fmt.Errorf("decoding queued hand-off %s: %w", parent.ID, err))
		}
		return p.Scope, p.KeyID, nil
	}
	if who, ok := access.FromContext(ctx); ok {
		return who.Scope, who.KeyID, nil
	}
	return nil, "", nil
}

// checkScope refuses, FORBIDDEN, a message of msg's type to recipients
// (expanded), with msg's escalate_to and fallback_action, that scope
// (nil: none) does not admit.
func (h *Hub) checkScope(scope *access.Scope, recipients []string, msg *handoff.Message) error {
	if scope == nil {
		return nil
	}
	who := access.Caller{Scope: scope}
	if err := h.scopeAdmits(who, recipients, msg.Payload.Type); err != nil {
		return err
	}
	fh := msg.Instructions.FailureHandling
	if fh == nil {
		return nil
	}
	if fh.EscalateTo != "" {
		if err := h.scopeAdmits(who, h.expand([]string{fh.EscalateTo}), handoff.Escalation); err != nil {
			return err
		}
	}
	if fh.FallbackAction != "" {
		name, command, _ := strings.Cut(fh.FallbackAction, "/")
		if a, ok := h.reg.Get(name); ok && command == "" {
			command = runCommand(a, msg.Payload.Type)
		}
		if !who.MayCall(name, command) {
			return notInScope(name, command)
		}
	}
	return nil
}

// scopeAdmits refuses the first of recipients that would run a message of
// type t with a command who may not call. A recipient that does not take
// t is passed over at delivery, so it is not checked.
func (h *Hub) scopeAdmits(who access.Caller, recipients []string, t handoff.Type) error {
	for _, to := range recipients {
		a, ok := h.reg.Get(to)
		if !ok {
			continue
		}
		if _, remote := a.RemoteEndpoint(); remote {
			if !who.MayCallAll(to) {
				return notInScope(to, "")
			}
			continue
		}
		if acc, ok := accept.Accepts(a, t); ok && !who.MayCall(to, acc.Command) {
			return notInScope(to, acc.Command)
		}
	}
	return nil
}

// runCommand is the command of a that runs a message of type t as a
// fallback: the one a accepts t with, else its default command.
func runCommand(a *program.Agent, t handoff.Type) string {
	if acc, ok := accept.Accepts(a, t); ok {
		return acc.Command
	}
	return program.DefaultCommand
}

// notInScope is the error of a hand-off to command of agent (""; every
// command, for a remote agent) that the sender's key may not call.
func notInScope(agent, command string) error {
	what := fmt.Sprintf("agent %q (command %q)", agent, command)
	if command == "" {
		what = fmt.Sprintf("agent %q (remote: every command of it)", agent)
	}
	return apierr.Errorf(apierr.CodeForbidden, "this key may not hand off to %s", what).
		Suggest("GET /agents lists what this key may call, with the hand-off types of each agent; ask an admin to widen the key's agents")
}
