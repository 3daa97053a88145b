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
	_, _, text, _ := chunkText(raw, false)
	return text
}

// ChunkPlainText is ChunkText for a caller that can use the text's bytes
// as they stand in the chunk. When the chunk's text is plain (one piece,
// ASCII without escapes or control characters, so its JSON string is the text between
// two quotes) it returns that text as a subslice of raw, and true;
// otherwise nil, false and ChunkText(raw), from the same single walk. A
// chunk that carries no text gives nil, true and "".
func ChunkPlainText(raw []byte) (plain []byte, ok bool, text string) {
	plain, ok, text, _ = chunkText(raw, true)
	return plain, ok, text
}

// textPart is one choice's content: a subslice of the chunk when it was
// scanned as plain, else the decoded string. open and close are where
// its string's quotes are in the chunk.
type textPart struct {
	raw         []byte
	str         string
	plain       bool
	open, close int
}

// textLayout is where a chunk whose text is one string has it: the
// string's quotes at open and close, and the end of the (last) choices
// member's value, after which only other top-level members follow.
// ChunkReader keeps it. It is zero for any other chunk.
type textLayout struct {
	open, close, choicesEnd int
}

// chunkText walks a chunk for ChunkText and ChunkPlainText; wantPlain
// scans each content string first to keep it raw when plain.
func chunkText(raw []byte, wantPlain bool) (plain []byte, ok bool, text string, at textLayout) {
	s := jsonscan.Scanner{Data: raw, AcceptInvalidUTF8: true}
	s.WS()
	if s.Peek() != '{' {
		return nil, wantPlain, "", at
	}
	var one [1]textPart // most chunks have one choice: no allocation for it
	parts := one[:0]
	choicesEnd := 0
	err := s.Object(func(key []byte) error {
		if string(key) != "choices" {
			return s.Skip()
		}
		parts = parts[:0] // the last "choices" counts
		if null, err := s.IsNull(); null || err != nil {
			choicesEnd = s.Pos
			return err
		}
		if s.Peek() != '[' {
			return s.Unexpected("choices")
		}
		err := s.Array(func() error {
			p, err := choiceText(&s, wantPlain)
			if p.plain && len(p.raw) == 0 || !p.plain && p.str == "" {
				return err // no text: nothing to join
			}
			parts = append(parts, p)
			return err
		})
		choicesEnd = s.Pos
		return err
	})
	if err != nil || s.End() != nil {
		return nil, wantPlain, "", at
	}
	switch len(parts) {
	case 0:
		return nil, wantPlain, "", at
	case 1:
		at = textLayout{open: parts[0].open, close: parts[0].close, choicesEnd: choicesEnd}
		if parts[0].plain {
			if wantPlain {
				return parts[0].raw, true, "", at
			}
			return nil, false, string(parts[0].raw), at
		}
		return nil, false, parts[0].str, at
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
	return nil, false, string(b), at
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
			at := s.Pos
			if wantPlain {
				end, plain, err := s.ScanString()
				if err != nil {
					return err
				}
				if plain {
					text = textPart{raw: s.Data[at+1 : end], plain: true, open: at, close: end}
					return nil
				}
				s.Pos = at
			}
			var err error
			text.str, err = s.ReadString()
			text.open, text.close = at, s.Pos-1
			return err
		})
	})
	return text, err
}
