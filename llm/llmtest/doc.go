// Package llmtest is the one fake model for tests: a loopback
// OpenAI-compatible /chat/completions upstream that answers with scripted
// replies and records every request it receives.
//
// A test scripts the replies in the order the requests come (Replies), or
// answers each request by looking at it (Answer), or both: the script is
// used first. A reply is text in chunks, tool calls streamed as deltas,
// usage, an HTTP error with a body, a truncated or aborted stream, pauses
// between chunks or before the headers, a wait at a Gate the test opens
// (for cancellation tests), a recorded stream served from a file (Replay),
// or a non-streamed JSON answer for a request with "stream": false.
//
//	m := llmtest.New(t, llmtest.Replies(
//		llmtest.Text("Hel", "lo"),
//		llmtest.Error(http.StatusTooManyRequests, "slow down"),
//	))
//	client, _ := llm.New(llm.Config{BaseURL: m.URL()})
//	// ... run the code under test ...
//	if got := m.Last().Body; !bytes.Equal(got, want) { ... }
//
// The chunk helpers (TextChunk, ToolCallChunk, FinishChunk, UsageChunk,
// ErrorChunk, SSE) write the frames the fake streams, so that tests which
// need exact upstream bytes build them the same way. The package imports
// only the standard library.
package llmtest
