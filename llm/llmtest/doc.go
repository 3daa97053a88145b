// Package llmtest is the one fake model for tests: a loopback
// OpenAI-compatible /chat/completions upstream that answers with scripted
// replies and records every request it receives.
//
// A test scripts the replies in the order the requests come (Replies), or
// answers each request by looking at it (Respond, Repeat), or both: the
// script is used first. A reply is text in chunks, tool calls streamed as
// deltas, usage, an HTTP error with a body, a truncated, cut or aborted
// stream, pauses between chunks or before the headers, a wait at a Gate
// the test opens or a stall until the client leaves (for cancellation
// tests: Model.Ended waits for the requests to end), a recorded stream
// served from a file (Replay), or a non-streamed JSON answer for a
// request with "stream": false. Handle is the way out for what the wire
// must do that no reply says (trailers, 1xx answers); its requests are
// recorded too.
//
//	m := llmtest.New(t, llmtest.Replies(
//		llmtest.Text("Hel", "lo"),
//		llmtest.Error(http.StatusTooManyRequests, "slow down"),
//	))
//	client, _ := llm.New(llm.Config{BaseURL: m.URL()})
//	// ... run the code under test ...
//	if got := m.Last(t).Body; !bytes.Equal(got, want) { ... }
//
// The chunk helpers (TextChunk, ToolCallChunk, ArgumentsChunk,
// FinishChunk, UsageChunk, ErrorChunk, Frame, SSE, Done) write the frames
// the fake streams, so that tests which need exact upstream bytes build
// them the same way. Last and Only fail the test, so they belong on the
// test's goroutine. The package imports only the standard library.
package llmtest
