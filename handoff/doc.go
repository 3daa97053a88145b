// Package handoff is the hand-off message of seed 001: what one agent sends
// another when it transfers a task, asks for or provides information,
// escalates, notifies, reports status or asks for approval.
//
// A message has four parts, with the protocol's JSON field names:
// metadata (ids, sender and recipients, task, priority, expiry), context
// (workflow state and history), payload (the handoff_type and its data)
// and instructions (what the receiver should do, and what to do on
// failure). Message and its parts are the Go view of it; Payload.Data keeps
// the data as JSON, DataMap and DecodeData decode it.
//
// The JSON Schemas (draft 2020-12) are files under schemas/ so that other
// systems can validate too: message.schema.json for the message, and
// data/<type>.schema.json for payload.data of each handoff_type, which the
// message schema references. They are embedded (Schemas). A Validator
// decodes untrusted bytes and checks them against those schemas, plus any
// data schema an agent declares for a type it accepts, and refuses an
// invalid message with a *ValidationError listing every violation by JSON
// pointer. New, Fill and Reply build messages to send.
//
// Delivery (queues, retries, HTTP) is not here; see handoff/queue.
package handoff
