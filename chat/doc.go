// Package chat is `agentgw chat`, a terminal client of the gateway: it
// talks to a gateway over its HTTP API the way an IDE plugin does. It
// fetches the agent's definition, collects the context variables the
// command declares (package collect), posts the request and renders the
// SSE answer; it offers the answer's actions as numbered choices, and
// answers the agent's frontend tool calls (read_file, list_files,
// search_text) inside the workspace directory.
package chat
