// Package openaiapi serves the gateway's agents as an OpenAI-compatible
// API, so that any IDE assistant or tool that can talk to an OpenAI base URL
// (Continue, Cline, Zed, JetBrains, Open WebUI, the official SDKs) can use
// them: GET /v1/models lists each agent command as a model ("agent" for its
// default command, "agent/command" for the others), and POST
// /v1/chat/completions runs one through the agent runner, streamed as
// OpenAI streams (chat.completion.chunk frames, then data: [DONE]) or
// answered as one chat.completion.
//
// The last user message becomes the userInputPrompt context variable, the
// earlier turns the request's messages, the system (and developer) messages
// the globalPrompts. Actions, which such clients cannot render, are written
// as Markdown at the end of the answer. A model that is no agent goes to the
// upstream model platform as it is (Passthrough). Errors have OpenAI's shape,
// {"error":{"message","type","param","code"}}, before the stream and inside
// it.
package openaiapi
