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
	_, _, text := chunkText(raw, false)
	return text
}

// ChunkPlainText is ChunkText for a caller that can use the text's bytes
// as they stand in the chunk. When the chunk's text is plain (one piece,
// ASCII without escapes or control characters, so its JSON string is the text between
// two quotes) it returns that text as a subslice of raw, and true;
// otherwise nil, false and ChunkText(raw), from the same single walk. A
// chunk that carries no text gives nil, true and "".
func ChunkPlainText(raw []byte) (plain []byte, ok bool, text string) {
	return chunkText(raw, true)
}

// textPart is one choice's content: a subslice of the chunk when it was
// scanned as plain, else the decoded string.
type textPart struct {
	raw   []byte
	str   string
	plain bool
}

// chunkText walks a chunk for ChunkText and ChunkPlainText; wantPlain
// scans each content string first to keep it raw when plain.
func chunkText(raw []byte, wantPlain bool) (plain []byte, ok bool, text string) {
	s := jsonscan.Scanner{Data: raw, AcceptInvalidUTF8: true}
	s.WS()
	if s.Peek() != '{' {
		return nil, wantPlain, ""
	}
	var one [1]textPart // most chunks have one choice: no allocation for it
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
			p, err := choiceText(&s, wantPlain)
			if p.plain && len(p.raw) == 0 || !p.plain && p.str == "" {
				return err // no text: nothing to join
			}
			parts = append(parts, p)
			return err
		})
	})
	if err != nil || s.End() != nil {
		return nil, wantPlain, ""
	}
	switch len(parts) {
	case 0:
		return nil, wantPlain, ""
	case 1:
		if parts[0].plain {
			if wantPlain {
				return parts[0].raw, true, ""
			}
			return nil, false, string(parts[0].raw)
		}
		return nil, false, parts[0].str
	}
	n := 0
	for _, p := range parts {
		n += len(p.raw) + len(p.str)
	}
	b := make([]byte, 0, n)
	for _, p := range parts {
		b = append(b, p.raw...)
		b = append(b, p.str...)
	}
	return nil, false, string(b)
}

// choiceText reads one choice (an object, or null) at s and returns the
// content of its delta; wantPlain keeps a plain content raw.
func choiceText(s *jsonscan.Scanner, wantPlain bool) (textPart, error) {
	if null, err := s.IsNull(); null || err != nil {
		return textPart{}, err
	}
	if s.Peek() != '{' {
		return textPart{}, s.Unexpected("a choice")
	}
	var text textPart
	err := s.Object(func(key []byte) error {
		if string(key) != "delta" {
			return s.Skip()
		}
		text = textPart{}
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
			text = textPart{}
			if null, err := s.IsNull(); null || err != nil {
				return err
			}
			if s.Peek() != '"' {
				return s.Unexpected("a delta's content")
			}
			if wantPlain {
				at := s.Pos
				end, plain, err := s.ScanString()
				if err != nil {
					return err
				}
				if plain {
					text = textPart{raw: s.Data[at+1 : end], plain: true}
					return nil
				}
				s.Pos = at
			}
			var err error
			text.str, err = s.ReadString()
			return err
		})
	})
	return text, err
}
