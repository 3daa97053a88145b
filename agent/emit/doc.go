// Package emit is what a run writes for the user to see: the Emitter
// interface, its Server-Sent-Events implementation (SSEEmitter: text,
// relayed chunks, copilot_action, copilot_tool_call and copilot_error
// frames, docs/protocol.md §3–§5) and the in-memory Recorder that call
// steps and tests read back, and the Sequencer that puts the output of a
// plan's parallel steps into step order.
package emit
