package llm

import (
	"encoding/json"
	"strings"
)

// ChunkText returns the text a chat.completion.chunk carries: the content
// of its choices' deltas, in order. A chunk that does not decode carries
// none. The relay never calls it: it is for the places that show or keep
// a stream's text (an llm step's result, the terminal client, tests).
func ChunkText(raw []byte) string {
	var c struct {
		Choices []struct {
			Delta struct {
				Content string `json:"content"`
			} `json:"delta"`
		} `json:"choices"`
	}
	if json.Unmarshal(raw, &c) != nil {
		return ""
	}
	if len(c.Choices) == 1 {
		return c.Choices[0].Delta.Content
	}
	var b strings.Builder
	for _, ch := range c.Choices {
		b.WriteString(ch.Delta.Content)
	}
	return b.String()
}
