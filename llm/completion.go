package llm

import (
	"encoding/json"
	"io"
)

// maxCompletion caps the non-streamed answer read by a streamed call.
const maxCompletion = 16 << 20

// completionAnswer is the part of a chat.completion that a chunk carries.
type completionAnswer struct {
	ID                string             `json:"id"`
	Created           int64              `json:"created"`
	Model             string             `json:"model"`
	SystemFingerprint string             `json:"system_fingerprint,omitempty"`
	Choices           []completionChoice `json:"choices"`
	Usage             json.RawMessage    `json:"usage,omitempty"`
	Error             json.RawMessage    `json:"error,omitempty"`
}

type completionChoice struct {
	Index        int             `json:"index"`
	Message      json.RawMessage `json:"message"`
	Logprobs     json.RawMessage `json:"logprobs,omitempty"`
	FinishReason json.RawMessage `json:"finish_reason"`
}

// completionChunk is a chat.completion turned into a chat.completion.chunk.
type completionChunk struct {
	ID                string          `json:"id"`
	Object            string          `json:"object"`
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	SystemFingerprint string          `json:"system_fingerprint,omitempty"`
	Choices           []chunkChoice   `json:"choices"`
	Usage             json.RawMessage `json:"usage,omitempty"`
}

type chunkChoice struct {
	Index        int             `json:"index"`
	Delta        json.RawMessage `json:"delta"`
	Logprobs     json.RawMessage `json:"logprobs,omitempty"`
	FinishReason json.RawMessage `json:"finish_reason"`
}

// completion relays the answer of an upstream that ignored "stream": true
// and answered one chat.completion: each choice's message becomes the delta
// of one chunk passed to the sink.
func (r *relay) completion(body io.Reader) error {
	raw, err := io.ReadAll(io.LimitReader(body, maxCompletion))
	if err != nil {
		return r.fail(err, KindStream, "reading the upstream answer failed")
	}
	r.event()
	chunk, err := completionToChunk(raw)
	if err != nil {
		return err
	}
	return r.chunk(chunk, false, true) // usage: read its members
}

// completionToChunk converts a chat.completion into a chunk.
func completionToChunk(raw []byte) ([]byte, error) {
	var a completionAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Error{Kind: KindStream, Message: "the upstream answer is not a chat completion", Err: err}
	}
	if len(a.Error) > 0 && string(a.Error) != "null" {
		return nil, &Error{Kind: KindStream, Message: upstreamMessage(raw)}
	}
	c := completionChunk{
		ID: a.ID, Object: "chat.completion.chunk", Created: a.Created, Model: a.Model,
		SystemFingerprint: a.SystemFingerprint, Choices: make([]chunkChoice, len(a.Choices)), Usage: a.Usage,
	}
	for i, ch := range a.Choices {
		delta := ch.Message
		if len(delta) == 0 || string(delta) == "null" {
			delta = json.RawMessage(`{}`)
		}
		c.Choices[i] = chunkChoice{Index: ch.Index, Delta: delta, Logprobs: ch.Logprobs, FinishReason: ch.FinishReason}
	}
	out, err := json.Marshal(c)
	if err != nil {
		return nil, &Error{Kind: KindStream, Message: "the upstream answer is not a chat completion", Err: err}
	}
	return out, nil
}
