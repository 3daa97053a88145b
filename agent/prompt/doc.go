// Package prompt builds the prompt a command sends its model: Render
// assembles it in the protocol's order (docs/protocol.md §9) from the
// command's compiled templates and what the request brings (turns, global
// prompts, the user's input, knowledge references), and Budget says how
// many tokens it may take for a model, so that the runner cuts the least
// valuable context (contextvars.Set.Cut, then CutTurns) until it fits.
package prompt
