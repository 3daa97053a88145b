// Package hub hands work from one agent to another (seed 001): it checks a
// hand-off message against the schemas and its recipient, queues it
// durably (package queue, over the gateway's database), and delivers it
// once: to a local agent, whose command for the message's type runs with
// the message as .handoff; to one agent of a pool; or to a remote agent's
// gateway. What a delivery produced is its result, readable by message and
// by task; when the message was sent from a conversation, the receiving
// run's answer is added to that conversation.
package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentgw/agentgw/agent/dispatch"
	"github.com/agentgw/agentgw/agent/program"
	"github.com/agentgw/agentgw/apierr"
	"github.com/agentgw/agentgw/handoff"
	"github.com/agentgw/agentgw/handoff/accept"
	"github.com/agentgw/agentgw/handoff/queue"
	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/internal/suggest"
	"github.com/agentgw/agentgw/observe"
	"github.com/agentgw/agentgw/remote"
)

// Origin is what a message carries of where it was sent from, beside the
// message itself: the conversation its results go to.
type Origin struct {
	// ContextID and Owner name the conversation (package conversation) the
	// sending run continued; "" for none.
	ContextID string `json:"contextId,omitempty"`
	Owner     string `json:"owner,omitempty"`
}

// payload is the queue's payload of a message.
type payload struct {
	Message json.RawMessage `json:"message"`
	Origin  Origin          `json:"origin,omitzero"`
	// Scope is the stored key's scope the message is held to, and the
	// messages its run sends (scope.go); nil for none.
	Scope *access.Scope `json:"scope,omitempty"`
	// KeyID is the id of the stored key that sent the message (over the
	// API, from a run of a request with it, from a schedule made with it,
	// or from the run of a message it sent): its delivery first checks
	// that the key is live (checkKey). Set by the hub from the caller,
	// never read from a request's body; "" for none.
	KeyID string `json:"keyId,omitempty"`
	// Checked marks a message checked against the schemas (the embedded
	// ones and its recipients' declared data schemas) before it was
	// queued: its delivery decodes it without checking it again
	// (handoff.DecodeChecked). A payload without it, queued by an older
	// gateway, is checked again at delivery.
	Checked bool `json:"checked,omitempty"`
}

// Limits bound what callers outside the gateway may send.
type Limits struct {
	// MaxExternalPriority is the highest priority of a message sent over
	// the API (Submit): one above it is refused, 422
	// HANDOFF_PRIORITY_NOT_ALLOWED. The agents of the operator's files
	// (Send) are not bound by it. "" is HIGH.
	MaxExternalPriority handoff.Priority
}

// Config configures a Hub.
type Config struct {
	// Registry is the gateway's agents, which messages are checked
	// against and delivered to (swapped in place on reload).
	Registry *program.Registry
	// Queue keeps the messages; nil: hand-offs are off, and every call
	// answers that they are not ready.
	Queue *queue.Queue
	// Remote reaches remote agents; nil: none.
	Remote remote.HandoffPoster
	// Limits bound what callers outside the gateway may send.
	Limits Limits
	// Pools are named pools of agents: a recipient_id (or escalate_to)
	// naming a pool, and no agent, is a pool of its agents, one of which
	// takes the message as of a list.
	Pools map[string][]string
	// Keys checks, before a message sent with a stored key is delivered
	// (or run by its fallback), that the key is live: keys.Store.LookupID,
	// one read of the keys' primary key. nil: the gateway reads no keys,
	// and such a message fails its run.
	Keys KeyCheck
	// Now is the clock of the messages; nil: time.Now.
	Now func() time.Time
	// Logger is where the hub says what it could not do; nil: nowhere.
	Logger *slog.Logger
}

// Hub sends and delivers hand-off messages. It is built in the gateway's
// dependency order, in two parts: New makes the sending side (Send,
// Submit, Get, Task) over the registry and the queue, before the step
// kind that sends through it, the loader and the runner; Handlers makes
// the receiving side over the runner, once it exists, for the queue's
// workers (queue.Queue.Start). Nothing is given to it after it is made.
//
// Every message belongs to an owner (package access): the API caller that
// submitted it; for a message an agent sent while handling a message, that
// message's owner (and its task, one hop further); else the conversation's
// owner the sending run continued, else access.Operator. Only its owner
// and admins see it (Get, Task); others are told it does not exist.
type Hub struct {
	log    *slog.Logger
	keys   KeyCheck
	now    func() time.Time
	remote remote.HandoffPoster
	limits Limits
	reg    *program.Registry
	queue  *queue.Queue

	// pools are the named pools (Config.Pools): a recipient naming one
	// that is no agent stands for its agents.
	pools map[string][]string

	// next turns pools round-robin.
	next atomic.Uint64
}

// New returns a hub. A MaxExternalPriority that is no priority is an
// error.
func New(cfg Config) (*Hub, error) {
	log, limits := cfg.Logger, cfg.Limits
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if limits.MaxExternalPriority == "" {
		limits.MaxExternalPriority = handoff.High
	}
	if !limits.MaxExternalPriority.Valid() {
		return nil, fmt.Errorf("handoffs.maxExternalPriority: %q is not LOW, MEDIUM, HIGH or CRITICAL", limits.MaxExternalPriority)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Registry == nil {
		cfg.Registry = program.NewRegistry(nil)
	}
	return &Hub{log: log, keys: cfg.Keys, now: cfg.Now, remote: cfg.Remote, limits: limits, reg: cfg.Registry, queue: cfg.Queue, pools: cfg.Pools}, nil
}

// expand is recipients with each named pool that is no agent replaced by
// its agents.
func (h *Hub) expand(recipients []string) []string {
	var out []string
	for _, to := range recipients {
		if members, ok := h.pools[to]; ok {
			if _, agent := h.reg.Get(to); !agent {
				out = append(out, members...)
				continue
			}
		}
		out = append(out, to)
	}
	return out
}

// Handlers are the hub's receiving side, the queue's handlers: they
// deliver each message to its recipient (a local agent's run through
// local, a remote agent's gateway through Config.Remote), escalate it
// (Escalate's doc) and run its fallback_action through local. The gateway
// gives them to the queue's Start once its runner exists.
func (h *Hub) Handlers(local dispatch.Local, budget observe.Budget) queue.Handlers {
	return queue.Handlers{
		Handler: func(ctx context.Context, env queue.Envelope) (json.RawMessage, error) {
			return h.deliver(ctx, local, budget, env)
		},
		Escalate: h.escalate,
		Fallback: func(ctx context.Context, env queue.Envelope, lastErr error) (json.RawMessage, error) {
			return h.fallback(ctx, local, budget, env, lastErr)
		},
	}
}

// ready returns the queue, or an error when hand-offs are off (no queue).
func (h *Hub) ready() (*queue.Queue, error) {
	if h.queue == nil {
		return nil, apierr.New(apierr.CodeInternal, "hand-offs are not ready yet")
	}
	return h.queue, nil
}

// Send fills msg (ids, timestamp, version), checks it and its recipients,
// and queues it: an agent of the gateway sends it. Sent while the hub
// delivers a message (from that run's steps and tools), it is in that
// message's task and its owner's, one hop further; else the owner is
// origin.Owner, or access.Operator. A message id seen before is not queued
// again: the record is returned as it is, with fresh false. A message past
// a bound of its task is kept DEAD, code HANDOFF_LIMIT, without an error:
// the sending run goes on, and the chain stops there.
func (h *Hub) Send(ctx context.Context, msg *handoff.Message, origin Origin) (st *Status, fresh bool, err error) {
	ctx, observed := observe.From(ctx).Handoff(ctx, observe.Handoff{Type: string(msg.Payload.Type), To: strings.Join(msg.Metadata.RecipientID, ",")})
	defer func() { observed(outcome(st, err)) }()
	sender := sender{owner: origin.Owner, hops: 1}
	var from *queue.Envelope
	if parent, ok := ctx.Value(parentKey{}).(queue.Envelope); ok {
		sender.owner, sender.hops = parent.Owner, max(parent.Hops, 1)+1
		if parent.TaskID != "" {
			msg.Metadata.TaskID = parent.TaskID
		}
		from = &parent
	}
	if sender.scope, sender.keyID, err = sendScope(ctx, from); err != nil {
		return nil, false, err
	}
	if sender.owner == "" {
		sender.owner = access.Operator
	}
	msg.Fill(h.now())
	raw, err := json.Marshal(msg)
	if err != nil {
		return nil, false, apierr.Internal(fmt.Errorf("encoding a hand-off message: %w", err))
	}
	return h.submit(ctx, raw, origin, sender)
}

// outcome is what Send tells its observer: err, or
// observe.ErrHandoffLimit for a message kept DEAD at a bound.
func outcome(st *Status, err error) error {
	if err == nil && st != nil && st.Code == queue.CodeLimit {
		return observe.ErrHandoffLimit
	}
	return err
}

// parentKey is the context key of the envelope of the message the hub is
// delivering: what the messages its run sends inherit.
type parentKey struct{}

// sender is who a message is queued for: its owner, its hop, whether
// it came from outside the gateway (the API), and the stored key's scope
// it is held to (nil: none) and id ("": none).
type sender struct {
	owner    string
	hops     int
	external bool
	scope    *access.Scope
	keyID    string
}

// Submit checks and queues a message that came as JSON (POST /handoffs)
// from caller, whose message it is, held to caller's scope (scope.go:
// FORBIDDEN for a recipient, escalate_to or fallback_action out of it)
// and, when caller sent a stored key, delivered only while that key is
// live (checkKey).
// Its errors are *apierr.Error: 400 for
// a message that is not JSON, 422 listing every violation by JSON pointer
// (HANDOFF_PRIORITY_NOT_ALLOWED for a priority above
// Limits.MaxExternalPriority), 404 for an unknown recipient, 409 for a
// message id taken by other content or by another owner's message.
func (h *Hub) Submit(ctx context.Context, caller access.Caller, raw []byte) (*Status, bool, error) {
	st, fresh, err := h.submit(ctx, raw, Origin{}, sender{owner: caller.Owner, hops: 1, external: true, scope: caller.Scope, keyID: caller.KeyID})
	if err == nil && fresh && st.Code == queue.CodeLimit {
		_, observed := observe.From(ctx).Handoff(ctx, observe.Handoff{Type: messageType(st.Message), To: strings.Join(st.Recipients, ",")})
		observed(observe.ErrHandoffLimit)
	}
	return st, fresh, err
}

// messageType is the payload.handoff_type of a message.
func messageType(raw []byte) string {
	var m struct {
		Payload struct {
			Type string `json:"handoff_type"`
		} `json:"payload"`
	}
	_ = json.Unmarshal(raw, &m)
	return m.Payload.Type
}

func (h *Hub) submit(ctx context.Context, raw []byte, origin Origin, from sender) (*Status, bool, error) {
	q, err := h.ready()
	if err != nil {
		return nil, false, err
	}
	msg, err := handoff.Decode(raw)
	if err != nil {
		return nil, false, invalid(err)
	}
	if ceiling := h.limits.MaxExternalPriority; from.external && msg.Metadata.Priority.Rank() > ceiling.Rank() {
		return nil, false, priorityRefused(msg.Metadata.Priority, ceiling)
	}
	if msg.Metadata.Expired(h.now()) {
		return nil, false, apierr.Errorf(apierr.CodeBadRequest, "hand-off message %s expired at %s", msg.Metadata.MessageID,
			msg.Metadata.ExpirationTime.UTC().Format(time.RFC3339)).
			Suggest("an expired message is never delivered: send it again with metadata.expiration_time in the future, or without one")
	}
	recipients := h.expand(msg.Metadata.RecipientID)
	if err := h.checkRecipients(recipients, msg, raw); err != nil {
		return nil, false, err
	}
	if fh := msg.Instructions.FailureHandling; fh != nil && fh.EscalateTo != "" {
		// What goes to escalate_to is an ESCALATION (Escalate), not msg.
		esc := &handoff.Message{Payload: handoff.Payload{Type: handoff.Escalation}}
		if err := h.checkRecipients(h.expand([]string{fh.EscalateTo}), esc, nil); err != nil {
			var e *apierr.Error
			if errors.As(err, &e) && e.Code == apierr.CodeBadRequest {
				e.Message = "escalate_to: " + e.Message + ": an escalation is a new ESCALATION message"
			}
			return nil, false, err
		}
	}
	if fh := msg.Instructions.FailureHandling; fh != nil && fh.FallbackAction != "" {
		if err := checkFallback(h.reg, fh.FallbackAction, msg.Payload.Type); err != nil {
			return nil, false, err
		}
	}
	if err := h.checkScope(from.scope, recipients, msg); err != nil {
		return nil, false, err
	}
	body, err := json.Marshal(payload{Message: raw, Origin: origin, Scope: from.scope, KeyID: from.keyID, Checked: true})
	if err != nil {
		return nil, false, apierr.Internal(fmt.Errorf("encoding a hand-off message: %w", err))
	}
	env := envelope(msg, body)
	env.Recipient = strings.Join(recipients, ",")
	env.Owner, env.Hops = from.owner, from.hops
	rec, fresh, err := q.Enqueue(ctx, env)
	if err != nil {
		return nil, false, storeError(err)
	}
	if !fresh && rec.Owner != from.owner {
		// Another owner's message: nothing of it is shown, nothing changed.
		return nil, false, apierr.Errorf(apierr.CodeConflict, "hand-off message id %s is taken", msg.Metadata.MessageID).
			Suggest("a message id names one message: send a new message with a new message_id")
	}
	st := newStatus(rec)
	if !fresh && !sameJSON(st.Message, raw) {
		return nil, false, apierr.Errorf(apierr.CodeConflict, "hand-off message %s was sent before with other content", msg.Metadata.MessageID).
			Suggest("a message id names one message: send a new message with a new message_id")
	}
	return st, fresh, nil
}

// priorityRefused is the error of a message from outside the gateway
// whose priority is above the ceiling.
func priorityRefused(p, ceiling handoff.Priority) error {
	e := apierr.Errorf(apierr.CodeHandoffPriority, "metadata.priority %s is above handoffs.maxExternalPriority (%s): a hand-off sent over the API may have at most %s", p, ceiling, ceiling)
	e.Violations = []apierr.Violation{{Pointer: "/metadata/priority", Message: fmt.Sprintf("%s is above handoffs.maxExternalPriority (%s)", p, ceiling)}}
	return e.Suggest(fmt.Sprintf("send it with priority %s or lower; the gateway's operator sets handoffs.maxExternalPriority", ceiling))
}

// sameJSON reports whether a and b are the same JSON value, whatever
// their spacing and key order.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// envelope is what the queue knows of msg.
func envelope(msg *handoff.Message, body []byte) queue.Envelope {
	md := msg.Metadata
	env := queue.Envelope{ID: md.MessageID, TaskID: md.TaskID, CorrelationID: md.CorrelationID,
		Priority: md.Priority.Rank(), Recipient: strings.Join(md.RecipientID, ","), Payload: body}
	if md.ExpirationTime != nil {
		env.ExpiresAt = *md.ExpirationTime
	}
	if fh := msg.Instructions.FailureHandling; fh != nil {
		if fh.RetryCount != nil {
			env.RetryCount = *fh.RetryCount
		}
		env.EscalateTo, env.FallbackAction = fh.EscalateTo, fh.FallbackAction
	}
	return env
}

// checkRecipients checks that recipients take msg: each is an agent of
// the gateway, and one (every one, of a pool, that accepts msg's type: the
// others are passed over) is remote or accepts the type, with its own data
// schema passing raw when raw is given.
func (h *Hub) checkRecipients(recipients []string, msg *handoff.Message, raw []byte) error {
	var refusal error
	able := 0
	for _, to := range recipients {
		a, ok := h.reg.Get(to)
		if !ok {
			return apierr.Errorf(apierr.CodeAgentNotFound, "hand-off recipient %q is not an agent of this gateway%s", to, suggest.DidYouMean(to, h.reg.Names())).
				Suggest("GET /agents lists the agents and the hand-off types each accepts")
		}
		if _, remote := a.RemoteEndpoint(); remote {
			able++
			continue
		}
		acc, ok := accept.Accepts(a, msg.Payload.Type)
		if !ok {
			refusal = apierr.Errorf(apierr.CodeBadRequest, "agent %q does not accept %s hand-offs%s", to, msg.Payload.Type, acceptedList(a)).
				Suggest("send a type the agent declares under handoffs, or declare it")
			continue
		}
		// The embedded schemas passed already (handoff.Decode): the
		// validator adds only the agent's own data schema, when declared.
		if raw != nil && acc.Validator.Declares(msg.Payload.Type) {
			if err := acc.Validator.Validate(raw); err != nil {
				return invalid(err)
			}
		}
		able++
	}
	if able == 0 {
		return refusal
	}
	return nil
}

// fallbackPointer is the JSON pointer of a message's fallback_action.
const fallbackPointer = "/instructions/failure_handling_strategy/fallback_action"

// checkFallback checks a message's fallback_action: it names a local agent
// of the gateway ("agent"), or one of its commands ("agent/command"), that
// runs the message when its retries are spent and no escalation took it.
// Anything else, such as the seed's own example "notify_customer_of_delay",
// is refused (422 INVALID_HANDOFF at the field) when the message is sent,
// not found out when the fallback is due.
func checkFallback(reg *program.Registry, action string, t handoff.Type) error {
	name, command, hasCommand := strings.Cut(action, "/")
	var why, hint string
	a, ok := reg.Get(name)
	switch {
	case !ok:
		why = fmt.Sprintf("%q names no agent of this gateway%s", action, suggest.DidYouMean(name, reg.Names()))
		hint = `a fallback_action is an agent ("agent") or one of its commands ("agent/command") that runs the message when its retries are spent; GET /agents lists them. To notify someone, name an agent whose command does it`
	case hasCommand && !slices.Contains(a.CommandNames(), command):
		why = fmt.Sprintf("agent %q has no command %q (it has %s)", name, command, strings.Join(a.CommandNames(), ", "))
		hint = "name one of the agent's commands, or the agent alone for the command it runs for the message's type"
	default:
		_, remote := a.RemoteEndpoint()
		_, accepts := accept.Accepts(a, t)
		switch {
		case remote:
			why = fmt.Sprintf("agent %q is remote: a fallback runs on this gateway", name)
			hint = "name an agent of this gateway"
		case !hasCommand && !accepts && !slices.Contains(a.CommandNames(), program.DefaultCommand):
			why = fmt.Sprintf("agent %q neither accepts %s hand-offs nor has a command %q", name, t, program.DefaultCommand)
			hint = `name the command it runs: "agent/command"`
		}
	}
	if why == "" {
		return nil
	}
	e := apierr.Errorf(apierr.CodeInvalidHandoff, "the hand-off message's fallback_action cannot run here: %s: %s", fallbackPointer, why)
	e.Violations = []apierr.Violation{{Pointer: fallbackPointer, Message: why}}
	return e.Suggest(hint)
}

func acceptedList(a *program.Agent) string {
	ts := accept.Types(a)
	if len(ts) == 0 {
		return " (it accepts none)"
	}
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = string(t)
	}
	return " (it accepts " + strings.Join(names, ", ") + ")"
}

// invalid is the protocol error of a message the schemas refuse.
func invalid(err error) error {
	var ve *handoff.ValidationError
	switch {
	case errors.As(err, &ve):
		e := apierr.Errorf(apierr.CodeInvalidHandoff, "the hand-off message breaks its schema: %s", listViolations(ve.Violations))
		for _, v := range ve.Violations {
			e.Violations = append(e.Violations, apierr.Violation{Pointer: v.Pointer, Message: v.Message})
		}
		return e.Suggest("fix each violation at its JSON pointer; the schemas are in handoff/schemas")
	case errors.Is(err, handoff.ErrTooLarge):
		return apierr.Errorf(apierr.CodePayloadTooLarge, "%v", err)
	}
	return apierr.Errorf(apierr.CodeBadRequest, "the hand-off message is not valid JSON: %v", err)
}

func listViolations(vs []handoff.Violation) string {
	parts := make([]string, 0, min(len(vs), 10))
	for i, v := range vs {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("and %d more", len(vs)-10))
			break
		}
		parts = append(parts, v.String())
	}
	return strings.Join(parts, "; ")
}

// storeError is the protocol error of a queue that failed.
func storeError(err error) error {
	return apierr.New(apierr.CodeStoreUnavailable, "the gateway's store is unavailable: it could not keep the hand-off").Wrap(err)
}

// Get returns a message's status and result, when caller owns it: another
// owner's message is not found, as one that does not exist.
func (h *Hub) Get(ctx context.Context, caller access.Caller, id string) (*Status, error) {
	q, err := h.ready()
	if err != nil {
		return nil, err
	}
	rec, err := q.Get(ctx, id)
	if errors.Is(err, queue.ErrNotFound) || (err == nil && !caller.Owns(rec.Owner)) {
		return nil, apierr.Errorf(apierr.CodeNotFound, "no hand-off message %q", id)
	}
	if err != nil {
		return nil, storeError(err)
	}
	return newStatus(rec), nil
}

// Task lists every message of a task that caller owns, and its result, in
// the order they were queued. A task is a task of one owner: another
// owner's messages of the same task id are not listed (an admin sees
// them all), and a task with none of caller's is not found.
func (h *Hub) Task(ctx context.Context, caller access.Caller, taskID string) (*TaskStatus, error) {
	q, err := h.ready()
	if err != nil {
		return nil, err
	}
	recs, err := q.Task(ctx, taskID)
	if err != nil {
		return nil, storeError(err)
	}
	out := &TaskStatus{TaskID: taskID, Messages: make([]*Status, 0, len(recs))}
	for _, rec := range recs {
		if caller.Owns(rec.Owner) {
			out.Messages = append(out.Messages, newStatus(rec))
		}
	}
	if len(out.Messages) == 0 {
		return nil, apierr.Errorf(apierr.CodeNotFound, "no task %q", taskID)
	}
	return out, nil
}
