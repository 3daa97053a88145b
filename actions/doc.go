// Package actions implements the interactive copilot_action frames of the
// agent protocol (docs/protocol.md §5): confirm buttons and trees,
// their validation, action feedback decoding and the signed action state.
package actions
