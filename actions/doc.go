// Package actions implements the interactive copilot_action frames of the
// agent protocol (PROTOCOL.md sections 3 and 4): confirm buttons and trees,
// their validation, action feedback decoding and the signed action state.
package actions
