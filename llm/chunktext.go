package llm

import (
	"github.com/agentgw/agentgw/internal/jsonscan"
)

// ChunkText returns the text a chat.completion.chunk carries: the content
// of its choices' deltas, in order. A chunk that is not valid JSON, or
// whose choices, deltas or contents are not of OpenAI's types (an array of
// objects, an object, a string; null is none), carries none. Member names
// are matched exactly, and a repeated member counts as its last occurrence,
// as in encoding/json. The relay never calls it: it is for the places that
// show or keep a stream's text (an llm step's result, a conversation's
// turn, the OpenAI endpoint's answer, the terminal client, tests).
//
// It walks the chunk with jsonscan rather than decoding it with
// encoding/json: BenchmarkChunkText (a 250-byte chunk) has it at about a
// third of the time, with three allocations instead of eleven; two since
// the one choice most chunks have is kept in an array on the stack
// (2026-11-29).
func ChunkText(raw []byte) string {
	s := jsonscan.Scanner{Data: raw, AcceptInvalidUTF8: true}
	s.WS()
	if s.Peek() != '{' {
		return ""
	}
	var one [1]string // most chunks have one choice: no allocation for it
	parts := one[:0]
	err := s.Object(func(key []byte) error {
		if string(key) != "choices" {
			return s.Skip()
		}
		parts = parts[:0] // the last "choices" counts
		if null, err := s.IsNull(); null || err != nil {
			return err
		}
		if s.Peek() != '[' {
			return s.Unexpected("choices")
		}
		return s.Array(func() error {
			text, err := choiceText(&s)
			parts = append(parts, text)
			return err
		})
	})
	if err != nil || s.End() != nil {
		return ""
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, 0, n)
	for _, p := range parts {
		b = append(b, p...)
	}
	return string(b)
}

// choiceText reads one choice (an object, or null) at s and returns the
// content of its delta.
func choiceText(s *jsonscan.Scanner) (string, error) {
	if null, err := s.IsNull(); null || err != nil {
		return "", err
	}
	if s.Peek() != '{' {
		return "", s.Unexpected("a choice")
	}
	var text string
	err := s.Object(func(key []byte) error {
		if string(key) != "delta" {
			return s.Skip()
		}
		text = ""
		if null, err := s.IsNull(); null || err != nil {
			return err
		}
		if s.Peek() != '{' {
			return s.Unexpected("a delta")
		}
		return s.Object(func(key []byte) error {
			if string(key) != "content" {
				return s.Skip()
			}
			text = ""
			if null, err := s.IsNull(); null || err != nil {
				return err
			}
			if s.Peek() != '"' {
				return s.Unexpected("a delta's content")
			}
			var err error
			text, err = s.ReadString()
			return err
		})
	})
	return text, err
}
